/**
 * Sharing one knowledge root through git: three clones of a real bare remote (file://), each
 * making random mutations on the same few topics (tags, body paragraphs, file status, refresh
 * after the upstream moved, now and then a delete or a new topic), with a sync round (every clone
 * syncs in turn) after each batch. Conflicts are resolved the way an operator would (keep both
 * sides' lines, keep a topic deleted on one side and changed on the other) and `sync --continue`.
 *
 *   npm run bench:sync -- [--mutations 60] [--rounds 6] [--topics 4] [--seed 1] [--smoke]
 *
 * Reports commits, topics merged by themselves vs conflicts, time and CPU per sync (the CLI
 * process and its git children, /usr/bin/time), and the orphan count: commits a mutation
 * reported that the remote's branch does not reach at the end (must be 0). Needs `npm run build`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { BIN, checkBuilt, cliEnv } from './lib/cli.js';
import { allowLocalFolder } from './lib/kb.js';
import { isMain } from './lib/main.js';
import type { BenchRecord } from './lib/records.js';
import { mean, percentile, printTable, round } from './lib/stats.js';
import { outputsFor, saveRecords, stamp, WORK_DIR } from './lib/store.js';

export interface GitSyncOptions {
  mutations: number;
  rounds: number;
  topics: number;
  seed: number;
  smoke: boolean;
  workDir: string;
  quiet?: boolean;
}

interface Run {
  code: number;
  json: any;
  out: string;
  ms: number;
  cpuMs: number;
}

const TIME = '/usr/bin/time';

/** One CLI process; CPU is user + system of it and the git processes it waited for. */
function run(args: string[], root: string): Promise<Run> {
  const argv = [process.execPath, BIN, ...args, '--root', root];
  const timed = existsSync(TIME);
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(timed ? TIME : argv[0]!, timed ? ['-f', '@@cpu %U %S', ...argv] : argv.slice(1), { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /@@cpu ([\d.]+) ([\d.]+)/.exec(err);
      let json: unknown;
      try {
        json = JSON.parse(out);
      } catch {
        json = undefined;
      }
      resolve({ code: code ?? -1, json, out: out + err, ms: performance.now() - t, cpuMs: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN });
    });
  });
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@b' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

/** A small deterministic PRNG (mulberry32), so a seed replays the same workload. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PARAGRAPHS = 6;
const bodyOf = (title: string, paras: string[]): string => `# ${title}\n\n${paras.join('\n\n')}\n`;

function topicIds(root: string): string[] {
  return readdirSync(join(root, 'references')).filter((n) => existsSync(join(root, 'references', n, 'topic.md'))).sort();
}

function bodyParagraphs(root: string, id: string): { title: string; paras: string[] } {
  const text = readFileSync(join(root, 'references', id, 'topic.md'), 'utf8');
  const body = text.split('\n+++\n')[1] ?? '';
  const title = /^# (.*)$/m.exec(body)?.[1] ?? id;
  const paras = body.split('\n\n').map((p) => p.trim()).filter((p) => p.startsWith('Paragraph'));
  while (paras.length < PARAGRAPHS) paras.push(`Paragraph ${paras.length + 1}.`);
  return { title, paras };
}

/** Files, manifest and topic.md agree (same paths, each file's bytes its record's). */
function consistent(root: string, id: string): boolean {
  const dir = join(root, 'references', id);
  try {
    const recs = readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { path: string; sha256: string });
    if (recs.some((r) => createHash('sha256').update(readFileSync(join(dir, r.path))).digest('hex') !== r.sha256)) return false;
    const files = /files = \[([^\]]*)\]/.exec(readFileSync(join(dir, 'topic.md'), 'utf8'))?.[1]?.match(/"[^"]+"/g)?.map((s) => JSON.parse(s) as string) ?? [];
    return JSON.stringify([...files].sort()) === JSON.stringify(recs.map((r) => r.path).sort());
  } catch {
    return false;
  }
}

/** What an operator does with each conflict: both sides' lines, a topic kept rather than lost; then --continue. */
function resolveConflicts(root: string, conflicts: { path: string; reason: string }[]): void {
  for (const c of conflicts) {
    const file = join(root, c.path);
    if (c.reason.startsWith('topic deleted')) {
      git(root, 'add', '-A', '--', c.path.replace(/\/topic\.md$/, ''));
    } else if (existsSync(file)) {
      writeFileSync(file, readFileSync(file, 'utf8').split('\n').filter((l) => !/^(<{7}|={7}|>{7})( |$)/.test(l)).join('\n'));
      git(root, 'add', '--', c.path);
    } else {
      git(root, 'rm', '-q', '--', c.path);
    }
  }
}

export async function runGitSync(opts: GitSyncOptions): Promise<BenchRecord[]> {
  checkBuilt();
  const log = (m: string): void => {
    if (!opts.quiet) process.stderr.write(`[git-sync] ${m}\n`);
  };
  const dir = join(opts.workDir, 'git-sync');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const rand = prng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

  // The upstream the topics are fetched from, moved between rounds so refreshes fetch something.
  const upstream = join(dir, 'upstream');
  mkdirSync(join(upstream, 'docs'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main', upstream);
  const upFiles = ['README.md', 'docs/a.md', 'docs/b.md', 'docs/c.md'];
  let upVersion = 0;
  const moveUpstream = (): void => {
    upVersion++;
    // README always moves (a commit needs a change); the other files now and then.
    for (const f of upFiles) if (upVersion === 1 || f === 'README.md' || rand() < 0.4) writeFileSync(join(upstream, f), `# ${f}\n\nVersion ${upVersion} of ${f}: shared reference text.\n`);
    git(upstream, 'add', '-A');
    git(upstream, 'commit', '-q', '-m', `v${upVersion}`);
  };
  moveUpstream();
  const url = pathToFileURL(upstream).href;
  const bare = join(dir, 'shared.git');
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
  const clones = ['a', 'b', 'c'].map((n) => join(dir, `kb-${n}`));
  const [first] = clones as [string];

  const reported: string[] = [];
  const ok = async (args: string[], root: string): Promise<Run> => {
    const r = await run([...args, '--json'], root);
    if (r.code !== 0) throw new Error(`${args.join(' ')} failed (${r.code}): ${r.out.slice(0, 500)}`);
    return r;
  };
  let created = 0;
  const create = async (root: string): Promise<void> => {
    created++;
    const title = `Shared topic ${created}`;
    const request = JSON.stringify({ title, body: bodyOf(title, Array.from({ length: PARAGRAPHS }, (_, i) => `Paragraph ${i + 1}.`)), sources: [{ type: 'git', url }], tags: ['shared'] });
    const ask = await run(['topic', 'create', '--json', '--input', request], root);
    await ok(['approve', ask.json.request_id], root); // the operator's yes
    const done = await ok(['topic', 'create', '--input', request], root);
    if (done.json.commit) reported.push(done.json.commit);
  };

  log('setting up the remote and three clones');
  await ok(['init'], first);
  allowLocalFolder(first, upstream); // committed: every clone may refresh from it
  git(first, 'remote', 'add', 'origin', bare);
  for (let i = 0; i < opts.topics; i++) await create(first);
  await ok(['sync'], first);
  for (const c of clones.slice(1)) git(dir, 'clone', '-q', bare, c);

  const syncs: Run[] = [];
  let autoMerged = 0;
  let converged = 0;
  let conflicts = 0;
  let conflictedSyncs = 0;
  let failed = 0;
  const kinds: Record<string, number> = {};
  const syncOnce = async (root: string): Promise<void> => {
    const r = await run(['sync', '--json'], root);
    syncs.push(r);
    if (r.code !== 0 && r.code !== 6) throw new Error(`sync failed (${r.code}): ${r.out.slice(0, 800)}`);
    autoMerged += r.json.merged.topics.length;
    converged += r.json.merged.converged.length;
    if (r.code === 6) {
      conflictedSyncs++;
      conflicts += r.json.conflicts.length;
      resolveConflicts(root, r.json.conflicts);
      const c = await run(['sync', '--continue', '--json'], root);
      syncs.push(c);
      if (c.code !== 0) throw new Error(`sync --continue failed (${c.code}): ${c.out.slice(0, 800)}`);
    }
  };

  const perRound = Math.max(1, Math.round(opts.mutations / opts.rounds));
  for (let round = 0; round < opts.rounds; round++) {
    if (round > 0) moveUpstream();
    for (const [ci, root] of clones.entries()) {
      for (let m = 0; m < perRound && round * perRound + m < opts.mutations; m++) {
        const ids = topicIds(root);
        const x = rand();
        let args: string[];
        let kind: string;
        const id = pick(ids);
        if (x < 0.3) {
          kind = 'tags';
          args = ['topic', 'update', id, '--tag', 'shared', '--tag', `t${Math.floor(rand() * 6)}`, ...(rand() < 0.5 ? ['--tag', `from-${'abc'[ci]}`] : [])];
        } else if (x < 0.6) {
          kind = 'body';
          const { title, paras } = bodyParagraphs(root, id);
          const p = Math.floor(rand() * PARAGRAPHS);
          paras[p] = `Paragraph ${p + 1}, edited on ${'abc'[ci]} in round ${round + 1}.`;
          args = ['topic', 'update', id, '--body', bodyOf(title, paras)];
        } else if (x < 0.75) {
          kind = 'file status';
          args = ['file', 'status', '--topic', id, '--path', pick(upFiles), '--status', pick(['active', 'problematic', 'obsolete']), '--reason', `seen on ${'abc'[ci]}`];
        } else if (x < 0.95) {
          kind = 'refresh';
          args = ['refresh', id];
        } else if (x < 0.975 && ids.length > 2) {
          kind = 'delete';
          args = ['delete', id, '--yes'];
        } else {
          kind = 'create';
          await create(root);
          kinds[kind] = (kinds[kind] ?? 0) + 1;
          continue;
        }
        const r = await run([...args, '--json'], root);
        kinds[kind] = (kinds[kind] ?? 0) + 1;
        if (r.code !== 0) {
          failed++;
          log(`${kind} on ${id} failed (${r.code}): ${r.out.slice(0, 200)}`);
          continue;
        }
        const commits = [r.json?.commit, ...(r.json?.topics ?? []).map((t: { commit?: string }) => t.commit)].filter((c): c is string => typeof c === 'string');
        reported.push(...commits);
      }
    }
    for (const root of clones) await syncOnce(root);
    log(`round ${round + 1}/${opts.rounds}: ${syncs.length} syncs so far, ${conflicts} conflicts, ${autoMerged} topics merged by themselves`);
  }
  // Quiet rounds bring every clone to the remote's state (one suffices unless it met a conflict).
  for (let i = 0; i < (opts.smoke ? 1 : 2); i++) for (const root of clones) await syncOnce(root);

  const trees = new Set(clones.map((c) => git(c, 'rev-parse', 'HEAD^{tree}')));
  const tip = git(bare, 'rev-parse', 'refs/heads/main');
  const orphans = reported.filter((c) => {
    try {
      git(bare, 'merge-base', '--is-ancestor', c, tip);
      return false;
    } catch {
      return true;
    }
  }).length;
  const inconsistent = topicIds(first).filter((id) => !consistent(first, id)).length;
  const unmerged = clones.reduce((n, c) => n + (git(c, 'ls-files', '-u') ? 1 : 0), 0);
  const commits = Number(git(bare, 'rev-list', '--count', tip));
  const merges = Number(git(bare, 'rev-list', '--count', '--merges', tip));
  const syncMs = syncs.map((s) => s.ms);
  const cpu = syncs.map((s) => s.cpuMs).filter((v) => Number.isFinite(v));
  log(`mutations: ${JSON.stringify(kinds)}, failed ${failed}`);

  const command = opts.smoke ? 'npm run bench:smoke' : `npm run bench:sync -- --mutations ${opts.mutations} --rounds ${opts.rounds} --topics ${opts.topics} --seed ${opts.seed}`;
  return [
    {
      bench: 'git-sync',
      dataset: `3 clones × ${opts.mutations} mutations, ${opts.topics} topics`,
      mode: `${opts.rounds} sync rounds`,
      embedder: 'none',
      mutations: reported.length,
      failed_mutations: failed,
      commits,
      merge_commits: merges,
      syncs: syncs.length,
      auto_merged: autoMerged,
      converged,
      conflicts,
      conflicted_syncs: conflictedSyncs,
      sync_p50_ms: round(percentile(syncMs, 50)),
      sync_max_ms: round(Math.max(...syncMs)),
      sync_cpu_ms: round(mean(cpu)),
      orphans,
      inconsistent_topics: inconsistent,
      clone_trees: trees.size,
      unmerged_clones: unmerged,
      ...stamp(command),
    },
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      mutations: { type: 'string' },
      rounds: { type: 'string' },
      topics: { type: 'string' },
      seed: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'work-dir': { type: 'string' },
      'out-dir': { type: 'string' },
    },
  });
  const smoke = values.smoke!;
  const t0 = performance.now();
  const records = await runGitSync({
    mutations: Number(values.mutations ?? (smoke ? 2 : 60)),
    rounds: Number(values.rounds ?? (smoke ? 1 : 6)),
    topics: Number(values.topics ?? (smoke ? 1 : 4)),
    seed: Number(values.seed ?? 1),
    smoke,
    workDir: values['work-dir'] ?? (smoke ? join(WORK_DIR, 'smoke') : WORK_DIR),
  });
  const r = records[0]!;
  printTable(['figure', 'value'], Object.entries(r).filter(([, v]) => typeof v === 'number').map(([k, v]) => [k, String(v)]));
  saveRecords(records, outputsFor(smoke, values['out-dir']));
  console.log(`git-sync: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (r.orphans !== 0 || r.inconsistent_topics !== 0 || r.clone_trees !== 1 || r.unmerged_clones !== 0) {
    console.error('git-sync: the clones did not end in one consistent state, or a reported commit is orphaned');
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) await main();
