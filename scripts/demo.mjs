#!/usr/bin/env node
/**
 * The main job, offline: make a knowledge root in ./demo-kb, create a real reference topic from
 * real sources (MiniSearch's TypeScript source and README, from node_modules, as a local git
 * repository; its CHANGELOG served as a web page on 127.0.0.1) through both approval phases,
 * then run a topic search and a reference search with the default (offline) embedder.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const project = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(process.env.DEMO_ROOT ?? join(project, 'demo-kb'));
const work = join(project, '.demo-work');
const bin = join(project, 'bin', 'run.cjs');

function tkoma(args, { expectExit = 0 } = {}) {
  console.error(`\n$ tkoma-ref ${args.map((a) => (/[\s{"]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  // Asynchronous spawn would let the HTTP server below answer while the CLI runs.
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, ...args, '--root', root], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', (code) => {
      if (code !== expectExit) reject(new Error(`tkoma-ref ${args[0]} exited ${code}: ${out}`));
      else resolvePromise(out);
    });
  });
}

const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: 'demo', GIT_AUTHOR_EMAIL: 'demo@localhost', GIT_COMMITTER_NAME: 'demo', GIT_COMMITTER_EMAIL: 'demo@localhost' } });

if (!existsSync(join(project, 'dist', 'commands'))) {
  console.error('Build first: npm run build');
  process.exit(1);
}

// 1. Real sources: MiniSearch as a local git repository, its changelog as a local web page.
const pkg = join(project, 'node_modules', 'minisearch');
const upstream = join(work, 'minisearch');
rmSync(work, { recursive: true, force: true });
rmSync(root, { recursive: true, force: true });
mkdirSync(upstream, { recursive: true });
for (const p of ['README.md', 'src', 'package.json']) cpSync(join(pkg, p), join(upstream, p), { recursive: true });
git(upstream, 'init', '-q', '-b', 'main');
git(upstream, 'add', '-A');
git(upstream, 'commit', '-q', '-m', 'MiniSearch sources from node_modules');

const changelog = readFileSync(join(pkg, 'CHANGELOG.md'), 'utf8');
const server = createServer((req, res) => {
  if (req.url === '/minisearch/CHANGELOG.md') res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' }).end(changelog);
  else res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${server.address().port}/minisearch/CHANGELOG.md`;

try {
  await tkoma(['init']);
  // The policy refuses local repositories and this machine's addresses until the operator opens
  // them in the root's settings: the demo's repository folder and its page server on 127.0.0.1.
  appendFileSync(join(root, 'tkoma-ref.toml'), `\n[network]\nallow = ["127.0.0.1"]\n\n[sources]\nlocal_roots = [${JSON.stringify(work)}]\n`);
  git(root, 'commit', '-q', '-m', 'allow the demo sources', '--', 'tkoma-ref.toml');
  const request = {
    title: 'MiniSearch - in-memory full-text search for JavaScript',
    body: [
      '# MiniSearch',
      '',
      'MiniSearch is a tiny but powerful in-memory full-text search engine written in JavaScript/TypeScript.',
      'It indexes documents with configurable fields, supports prefix and fuzzy search, field boosting,',
      'auto-suggestions and BM25+ ranking, and can serialise its index to JSON.',
      '',
      'Key APIs: `new MiniSearch({ fields, storeFields })`, `addAll`, `search(query, options)`,',
      '`autoSuggest`, `discard`/`replace`, `MiniSearch.loadJSON`.',
    ].join('\n'),
    sources: [
      { type: 'git', url: pathToFileURL(upstream).href, paths: ['README.md', 'src/'] },
      { type: 'web', url: pageUrl },
    ],
    tags: ['javascript', 'typescript', 'search', 'full-text', 'bm25'],
    max_age_days: 90,
    trust_score: 8,
  };
  // Phase 1: metadata only, exit status 4 and a pending request for the operator.
  const phase1 = JSON.parse(await tkoma(['topic', 'create', '--json', '--ghost', 'demo-ghost', '--input', JSON.stringify(request)], { expectExit: 4 }));
  console.log(`approval requested (${phase1.request_id}): ${phase1.summary}`);
  // The operator looks and says yes; then the ghost's identical request proceeds.
  console.log(await tkoma(['approvals']));
  await tkoma(['approve', phase1.request_id]);
  const created = JSON.parse(await tkoma(['topic', 'create', '--json', '--ghost', 'demo-ghost', '--model', 'demo', '--input', JSON.stringify(request)]));
  console.log(`created ${created.topic_id}: ${created.file_count} files, ${created.chunk_count} chunks, vectors: ${created.vector_search.available ? created.vector_search.embedder : 'off'}`);

  const topics = JSON.parse(await tkoma(['topic', 'search', 'library to find documents by words in the browser', '--json']));
  console.log('topic search:', topics.map((t) => `${t.topic_id} (${t.score})`).join(', '));

  console.log(await tkoma(['search', 'how do I make matches in the title count more than matches in the text', '--limit', '5']));
  console.log(await tkoma(['topic', 'list']));
  const log = spawnSync('git', ['-C', root, 'log', '--oneline'], { encoding: 'utf8' }).stdout;
  console.log(`git log of the knowledge root:\n${log}`);
} finally {
  server.close();
}
