/**
 * The commands whose logic both paths share (cli/fast-shared.ts): each call is run twice, on two
 * copies of one root, on the fast path and through oclif (TKOMA_REF_NO_FAST_PATH), and must answer,
 * fail and commit alike; the trace shows the fast path really skipped oclif.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, binEnv, cli, type CliResult, git, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir();
afterAll(() => tmp.cleanup());

const template = join(tmp.path, 'template');
let requestId = '';
let url = '';
let roots = 0;
/** A fresh copy of the template root: each side of a comparison gets its own. */
function fresh(): string {
  const root = join(tmp.path, `root-${roots++}`);
  cpSync(template, root, { recursive: true });
  return root;
}

let traces = 0;
/** The fast side: the binary as cli() runs it, with every module it loads traced. */
function traced(args: string[], root: string, input?: string): CliResult & { oclif: boolean } {
  const trace = join(tmp.path, `trace-${traces++}.txt`);
  const r = spawnSync(process.execPath, ['--import', join(PROJECT, 'test/helpers/trace-imports.mjs'), BIN, ...args, '--root', root], {
    env: binEnv({ DEBUG: '', TKOMA_TRACE_FILE: trace }),
    input: input ?? '',
    encoding: 'utf8',
  });
  const oclif = readFileSync(trace, 'utf8').split('\n').some((m) => m.includes('@oclif/core'));
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json: undefined, oclif };
}

/** Commit ids, new request ids, times and each side's own folder differ between two runs; nothing else may. */
function alike(r: CliResult, root: string) {
  const mask = (s: string) =>
    s
      .split(root)
      .join('<root>')
      .replace(/\b[0-9a-f]{40}\b/g, '<commit>')
      .replace(/\b[0-9a-f]{8}\b/g, (id) => (id === requestId ? id : '<request id>')) // a new request's id is random
      .replace(/commit [0-9a-f]{7}\b/g, 'commit <short>')
      .replace(/\b[0-9a-f]{7}\s*$/gm, '<short>')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
      .replace(/"(elapsed_ms|bytes_on_disk)":\d+/g, '"$1":<n>')
      .replace(/\(\d+(\.\d+)?m?s\)/g, '(<secs>)');
  return { code: r.code, stdout: mask(r.stdout), stderr: mask(r.stderr) };
}

/** What a call left in the root: the commits (author, subject, paths) and the topic's note, times masked. */
function committed(root: string) {
  const note = join(root, 'references', 'topic-kept', 'topic.md');
  return {
    log: git(root, 'log', '--format=%an <%ae> %s', '--name-status'),
    files: git(root, 'ls-tree', '-r', '--name-only', 'HEAD'),
    note: existsSync(note) ? readFileSync(note, 'utf8').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>') : null,
    approvals: git(root, 'status', '--porcelain'),
  };
}

beforeAll(async () => {
  await freshRoot(template);
  url = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Kept\n\nText.\n', 'docs/a.md': '# A\n\nMore.\n' }).url;
  expect((await cli(['topic', 'create', '--yes', '--json', '--title', 'Kept', '--git', url], { root: template })).code).toBe(0);
  // A ghost's request waiting for the operator: what approve and deny decide.
  const asked = await cli(['topic', 'create', '--json', '--input', JSON.stringify({ title: 'Asked', sources: [{ type: 'git', url }] })], { root: template });
  requestId = asked.json.request_id;
  expect(requestId).toMatch(/^[0-9a-f]{8}$/);
});

const cases: { name: string; args: () => string[]; input?: string; oclif?: true }[] = [
  { name: 'topic update, JSON', args: () => ['topic', 'update', 'kept', '--tag', 'a', '--tag', 'b', '--max-age-days', '9', '--json'] },
  { name: 'topic update, text', args: () => ['topic', 'update', 'topic-kept', '--title', 'New title', '--ghost', 'g1', '--model', 'm1'] },
  { name: 'topic update, --input on stdin', args: () => ['topic', 'update', '--input', '-', '--json'], input: '{"topic_id":"kept","trust_score":7}' },
  { name: 'topic update, an error named in flag terms', args: () => ['topic', 'update', 'kept', '--trust-score', '11'] },
  { name: 'topic update, a missing id in flag terms', args: () => ['topic', 'update', '--json'] },
  { name: 'topic update, no such topic', args: () => ['topic', 'update', 'nope', '--status', 'stale'] },
  { name: 'get, JSON', args: () => ['get', '--topic', 'kept', '--path', 'README.md', '--start-line', '1', '--end-line', '2', '--json'] },
  { name: 'get, text by note id', args: () => ['get', '--id', 'kept/docs/a.md'] },
  { name: 'get, an error', args: () => ['get', '--topic', 'kept', '--path', 'missing.md'] },
  { name: 'get, lines backwards', args: () => ['get', '--topic', 'kept', '--start-line', '5', '--end-line', '2', '--json'] },
  { name: 'delete --yes, JSON', args: () => ['delete', 'kept', '--yes', '--json'] },
  { name: 'delete --yes, text', args: () => ['delete', 'topic-kept', '--yes'] },
  { name: 'delete without --yes and no terminal', args: () => ['delete', 'kept'] },
  { name: 'approve', args: () => ['approve', requestId] },
  { name: 'approve, JSON, an unknown request', args: () => ['approve', 'deadbeef', '--json'] },
  { name: 'deny with a note', args: () => ['deny', requestId, '--note', 'only docs/', '--json'] },
  { name: 'deny, a note too long', args: () => ['deny', requestId, '--note', 'x'.repeat(2001)] },
  { name: 'file status, JSON', args: () => ['file', 'status', '--topic', 'kept', '--path', 'docs/a.md', '--status', 'obsolete', '--reason', 'old', '--json'] },
  { name: 'file status, text', args: () => ['file', 'status', '--topic', 'kept', '--path', 'docs/a.md', '--status', 'problematic', '--reason', 'wrong'] },
  { name: 'file status, a missing reason in flag terms', args: () => ['file', 'status', '--topic', 'kept', '--path', 'docs/a.md', '--status', 'obsolete'] },
  { name: 'index status, JSON', args: () => ['index', 'status', '--json'] },
  { name: 'index status, text', args: () => ['index', 'status'] },
  { name: 'refresh, JSON', args: () => ['refresh', 'kept', '--json'] },
  { name: 'refresh --all --dry-run, JSON', args: () => ['refresh', '--all', '--dry-run', '--json'] },
  { name: 'refresh, JSON, no such topic', args: () => ['refresh', 'kept', 'nope', '--json'] },
  { name: 'sync, JSON, no remote', args: () => ['sync', '--json'] },
  { name: 'topic create by flags, JSON', args: () => ['topic', 'create', '--yes', '--json', '--title', 'Made', '--git', url, '--path', 'docs/', '--tag', 'a', '--tag', 'b', '--ghost', 'g1'] },
  { name: 'topic create by flags, approval required', args: () => ['topic', 'create', '--json', '--title', 'Made', '--git', url] },
  { name: 'topic create by flags, an error in flag terms', args: () => ['topic', 'create', '--json', '--yes', '--git', url, '--max-age-days', '5'] },
  { name: 'topic create by flags, crawl bounds without --crawl', args: () => ['topic', 'create', '--json', '--title', 'Made', '--web', 'http://127.0.0.1:9/', '--max-pages', '3'] },
  // Handed to oclif: the same answer either way.
  { name: 'refresh without --json (progress for people)', args: () => ['refresh', 'kept'], oclif: true },
  { name: 'topic update, words after a repeatable flag', args: () => ['topic', 'update', 'kept', '--tag', 'a', 'b', '--json'], oclif: true },
  { name: 'topic update, a repeated flag', args: () => ['topic', 'update', 'kept', '--title', 'a', '--title', 'b', '--json'], oclif: true },
  { name: 'get, a value out of range', args: () => ['get', '--topic', 'kept', '--start-line', '0', '--json'], oclif: true },
  { name: 'delete, no id', args: () => ['delete', '--yes', '--json'], oclif: true },
  { name: 'approve --help', args: () => ['approve', '--help'], oclif: true },
  { name: 'index status, an unknown flag', args: () => ['index', 'status', '--bogus'], oclif: true },
  { name: 'topic create, --body with --body-file', args: () => ['topic', 'create', '--json', '--title', 'Made', '--git', url, '--body', 'b', '--body-file', 'x.md'], oclif: true },
  { name: 'topic create by flags without --json', args: () => ['topic', 'create', '--yes', '--title', 'Made', '--git', url], oclif: true },
];

describe('commands both paths share', () => {
  for (const { name, args, input, oclif } of cases) {
    it(`${name}: answers and commits as oclif does${oclif ? ' (oclif answers both)' : ', without loading oclif'}`, async () => {
      const [a, b] = [fresh(), fresh()];
      const fast = traced(args(), a, input);
      const slow = await cli(args(), { root: b, env: { TKOMA_REF_NO_FAST_PATH: '1' }, ...(input ? { input } : {}) });
      expect(alike(fast, a)).toEqual(alike(slow, b));
      expect(fast.oclif).toBe(oclif === true);
      expect(committed(a)).toEqual(committed(b));
      // The approval request as decided (its file is state, not committed).
      const decided = (root: string) => readFileSync(join(root, '.tkoma', 'approvals', `${requestId}.json`), 'utf8').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>');
      expect(decided(a)).toBe(decided(b));
    });
  }

  it('sync with a remote, JSON: pushes as oclif does', async () => {
    const sides = [fresh(), fresh()].map((root) => {
      const remote = `${root}-remote.git`;
      execFileSync('git', ['init', '-q', '--bare', remote]);
      git(root, 'remote', 'add', 'origin', remote);
      return root;
    });
    const fast = traced(['sync', '--json'], sides[0]!);
    const slow = await cli(['sync', '--json'], { root: sides[1], env: { TKOMA_REF_NO_FAST_PATH: '1' } });
    expect(fast.code, fast.stdout + fast.stderr).toBe(0);
    expect(alike(fast, sides[0]!)).toEqual(alike(slow, sides[1]!));
    expect(fast.oclif).toBe(false);
    expect(git(`${sides[0]}-remote.git`, 'log', '--all', '--format=%an %s')).toBe(git(`${sides[1]}-remote.git`, 'log', '--all', '--format=%an %s'));
  });
});
