/**
 * A documentation site crawled from one URL (issue 28): how fast a whole `topic create` with a
 * crawl goes, and how much memory it takes, then a refresh in which every page answers 304.
 *
 *   npm run bench:crawl -- [--pages 500] [--keep]
 *
 * The site is generated here and served by a real HTTP server on 127.0.0.1: N pages (the index,
 * one index per part, the rest guide pages) of HTML with a header, a sidebar of the part's pages,
 * code blocks and tables (the sections of installed packages' markdown docs, rendered), prev/next
 * and "see also" links, a few links to pages that do not exist (404) and off the site; robots.txt
 * names a sitemap of every page; every page has an ETag and a Last-Modified. The CLI runs through
 * the built binary (`npm run build` first) on a root whose tkoma-ref.toml allows 127.0.0.1, under
 * GNU time (wall, CPU, peak RSS of the CLI process or its largest child), embedder none.
 * `--pages 20` is the quick check. Figures are printed as a markdown table (with the load
 * average: the machines are shared); docs/BENCHMARKS.md keeps them in a hand-written section.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { renderMarkdown } from '../test/helpers/docs-site.js';
import { BIN, checkBuilt, cliEnv } from './lib/cli.js';
import { isMain } from './lib/main.js';
import { PROJECT } from './lib/store.js';

const PAGES_PER_PART = 50;
const DEAD_LINKS = 5;

interface SitePage {
  path: string;
  title: string;
  html: string;
  etag: string;
}

/** `## ` sections of the installed packages' markdown docs, in a fixed order: real prose, code and tables. */
function docSections(want: number): { title: string; markdown: string }[] {
  const files: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const abs = join(dir, name);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory() && depth < 4 && name !== 'test' && name !== 'tests') walk(abs, depth + 1);
      else if (st.isFile() && /\.md$/i.test(name) && st.size > 2000 && st.size < 200_000) files.push(abs);
    }
  };
  walk(join(PROJECT, 'node_modules'), 0);
  const out: { title: string; markdown: string }[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
    for (const part of text.split(/\n(?=## )/)) {
      const m = /^#{1,2} (.+)/.exec(part);
      if (!m || part.length < 600 || seen.has(part)) continue;
      seen.add(part);
      out.push({ title: m[1]!.replace(/[<>`*[\]]/g, '').slice(0, 80), markdown: part.slice(0, 12_000) });
      if (out.length >= want) return out;
    }
  }
  if (out.length === 0) throw new Error('no markdown docs found under node_modules');
  // Fewer sections than pages: cycle through them (each page still has its own title and links).
  for (let i = 0; out.length < want; i++) out.push(out[i]!);
  return out;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function layout(title: string, sidebar: string, body: string, parts: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)} · Bench docs</title>
<link rel="stylesheet" href="/assets/site.css"></head>
<body><header class="site-header"><a href="/">Home</a> <a href="/docs/">Docs</a> <a href="/blog/">Blog</a> <a href="https://example.com/community">Community</a></header>
<nav class="parts">${parts}</nav>
<aside class="sidebar"><nav>${sidebar}</nav></aside>
<main><article class="markdown-body">${body}</article></main>
<footer>Copyright the bench authors. <a href="/docs/">Docs home</a></footer></body></html>`;
}

/** The whole site: `total` HTML pages under /docs/, by path. */
function buildSite(total: number): Map<string, SitePage> {
  const partCount = Math.max(1, Math.round(total / PAGES_PER_PART));
  const guideCount = total - partCount - 1;
  if (guideCount < 1) throw new Error(`--pages ${total} is too few for a site`);
  const sections = docSections(guideCount);
  const partOf = (i: number) => i % partCount;
  const guidePath = (i: number) => `/docs/part-${partOf(i) + 1}/page-${String(i + 1).padStart(4, '0')}`;
  const parts = Array.from({ length: partCount }, (_, p) => `<a href="/docs/part-${p + 1}/">Part ${p + 1}</a>`).join(' ');
  const sidebarOf = (p: number) =>
    sections
      .map((s, i) => ({ s, i }))
      .filter(({ i }) => partOf(i) === p)
      .map(({ s, i }) => `<a href="${guidePath(i)}">${escapeHtml(s.title)}</a>`)
      .join('\n');
  const sidebars = Array.from({ length: partCount }, (_, p) => sidebarOf(p));
  const site = new Map<string, SitePage>();
  const add = (path: string, title: string, html: string) => site.set(path, { path, title, html, etag: `"${path.replace(/\W+/g, '-')}-v1"` });

  add('/docs/', 'Documentation', layout('Documentation', parts, `<h1>Documentation</h1><p>${guideCount} guides in ${partCount} parts.</p><ul>${Array.from({ length: partCount }, (_, p) => `<li><a href="/docs/part-${p + 1}/">Part ${p + 1}</a></li>`).join('')}</ul>`, parts));
  for (let p = 0; p < partCount; p++) {
    add(`/docs/part-${p + 1}/`, `Part ${p + 1}`, layout(`Part ${p + 1}`, sidebars[p]!, `<h1>Part ${p + 1}</h1><p>The guides of this part:</p>${sidebars[p]!.replace(/\n/g, '<br>')}`, parts));
  }
  sections.forEach((s, i) => {
    const links = [
      i > 0 ? `<a href="${guidePath(i - 1)}">Previous</a>` : '',
      i + 1 < guideCount ? `<a href="${guidePath(i + 1)}">Next</a>` : '',
      ...[7, 31, 97].map((k) => `<a href="${guidePath((i + k) % guideCount)}#top">See also</a>`),
      // A few pages link to pages that do not exist, and every page off the site.
      i < DEAD_LINKS ? `<a href="/docs/removed-${i + 1}">An old page</a>` : '',
      `<a href="/blog/post-${i % 10}">Blog</a>`,
      `<a href="https://example.com/issues/${i}">Issue ${i}</a>`,
    ].join(' ');
    const body = `${renderMarkdown(s.markdown)}\n<p class="pager">${links}</p>`;
    add(guidePath(i), s.title, layout(s.title, sidebars[partOf(i)]!, body, parts));
  });
  return site;
}

interface Timed {
  code: number;
  stdout: string;
  stderr: string;
  wall_s: number;
  cpu_s: number;
  peak_mb: number;
}

/** The CLI under GNU time, without blocking this process (its HTTP server answers the crawl). */
function timedCli(args: string[], env: NodeJS.ProcessEnv): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '@@TIME %e %U %S %M', process.execPath, BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /@@TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (!m) return reject(new Error(`no timing from ${args.join(' ')}: ${stderr.slice(-1000)}`));
      resolve({ code: code ?? 1, stdout, stderr, wall_s: Number(m[1]), cpu_s: Number(m[2]) + Number(m[3]), peak_mb: Math.round(Number(m[4]) / 1024) });
    });
  });
}

function parseJson(r: Timed, what: string): any {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`${what}: exit ${r.code}, no JSON answer; stderr: ${r.stderr.slice(-2000)}`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { pages: { type: 'string', default: '500' }, keep: { type: 'boolean', default: false } } });
  const total = Number(values.pages);
  if (!Number.isInteger(total) || total < 3 || total > 1000) throw new Error('--pages must be a whole number from 3 to 1000');
  checkBuilt();
  const site = buildSite(total);
  const sitemap = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${[...site.keys()].map((p) => `<url><loc>BASE${p}</loc></url>`).join('\n')}\n</urlset>\n`;
  const modified = new Date(Math.floor(Date.now() / 1000) * 1000 - 86_400_000).toUTCString();
  const hits = { pages200: 0, pages304: 0, other: 0 };
  let base = '';
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', base).pathname;
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /admin/\n\nSitemap: ${base}/sitemap.xml\n`);
    if (path === '/sitemap.xml') return void res.writeHead(200, { 'content-type': 'application/xml' }).end(sitemap.replaceAll('BASE', base));
    const page = site.get(path);
    if (!page) {
      hits.other++;
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    }
    if (req.headers['if-none-match'] === page.etag || (!req.headers['if-none-match'] && req.headers['if-modified-since'] === modified)) {
      hits.pages304++;
      return void res.writeHead(304, { etag: page.etag, 'last-modified': modified }).end();
    }
    hits.pages200++;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: page.etag, 'last-modified': modified }).end(page.html);
  };
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const siteBytes = [...site.values()].reduce((n, p) => n + Buffer.byteLength(p.html), 0);

  const work = mkdtempSync(join(tmpdir(), 'tkoma-bench-crawl-'));
  const root = join(work, 'kb');
  const env = cliEnv({ TKOMA_REF_VECTOR_WORKER: 'off' });
  const id = 'topic-bench-docs';
  const rows: string[][] = [];
  try {
    const init = await timedCli(['init', '--json', '--root', root], env);
    if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
    // As a user would: this root may fetch from 127.0.0.1.
    appendFileSync(join(root, 'tkoma-ref.toml'), '\n[network]\nallow = ["127.0.0.1"]\n');
    const input = JSON.stringify({
      title: 'Bench docs',
      body: '# Bench docs\n\nA generated documentation site.\n',
      topic_id: id,
      sources: [{ type: 'web', url: `${base}/docs/`, crawl: { max_pages: Math.min(1000, total + 10) } }],
    });

    const phase1 = await timedCli(['topic', 'create', '--json', '--root', root, '--input', input], env);
    const p1 = parseJson(phase1, 'phase 1');
    const preview = p1.sources?.[0]?.crawl;
    if (!preview) throw new Error(`phase 1 showed no crawl: ${phase1.stdout.slice(0, 1000)}`);
    rows.push(['phase 1 (robots.txt, sitemap; no page)', String(phase1.wall_s), phase1.cpu_s.toFixed(2), String(phase1.peak_mb), '–', `${preview.found} pages found; ${preview.bound}`]);

    const created = await timedCli(['topic', 'create', '--json', '--root', root, '--input', input, '--yes'], env);
    const c = parseJson(created, 'phase 2');
    if (created.code !== 0) throw new Error(`phase 2 failed: ${created.stdout.slice(0, 2000)}`);
    const crawl = c.sources[0].crawl;
    const reasons: Record<string, number> = {};
    for (const s of crawl.skipped_pages as { reason: string }[]) reasons[s.reason] = (reasons[s.reason] ?? 0) + 1;
    rows.push([
      '`topic create --yes` (crawl, convert, commit, index)',
      String(created.wall_s),
      created.cpu_s.toFixed(2),
      String(created.peak_mb),
      (crawl.pages / created.wall_s).toFixed(1),
      `${crawl.pages} pages kept, ${crawl.skipped} skipped (${Object.entries(reasons).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'}), ${crawl.out_of_scope_links} off-scope links not followed; ${c.chunk_count} chunks`,
    ]);

    hits.pages200 = hits.pages304 = 0;
    const refreshed = await timedCli(['refresh', id, '--json', '--root', root], env);
    const rf = parseJson(refreshed, 'refresh');
    if (refreshed.code !== 0) throw new Error(`refresh failed: ${refreshed.stdout.slice(0, 2000)}`);
    const t = rf.topics[0];
    const rc = t.sources[0].crawl;
    rows.push([
      '`refresh` (conditional requests)',
      String(refreshed.wall_s),
      refreshed.cpu_s.toFixed(2),
      String(refreshed.peak_mb),
      (rc.pages / refreshed.wall_s).toFixed(1),
      `${rc.not_modified} of ${rc.pages} pages 304 (server: ${hits.pages304} × 304, ${hits.pages200} × 200); +${t.added} ~${t.changed} -${t.removed}, ${t.unchanged} unchanged`,
    ]);
  } finally {
    server.close();
    if (values.keep) console.log(`kept ${work}`);
    else if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  }
  console.log(`site: ${total} pages, ${(siteBytes / 1e6).toFixed(1)} MB of HTML; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
  console.log('| run | wall s | CPU s | peak RSS MB | pages/s | result |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.map((c) => c.replaceAll(base, '<site>').replace(/\|/g, '\\|')).join(' | ')} |`);
}

if (isMain(import.meta.url)) await main();
