/**
 * Commands that do not search must never load models, grammars, hnswlib or MiniSearch: agents
 * call them many times a turn. We record every module the real binary resolves.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';
import { spawnSync } from 'node:child_process';

const HEAVY = ['hnswlib-node', 'web-tree-sitter', '@huggingface/transformers', '@energetic-ai', 'minisearch', 'onnxruntime', 'listr2', 'chokidar', '/lib/index/bm25'];

describe('start-up stays light', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');

  beforeAll(async () => {
    await freshRoot(root);
    const repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# A\n\nText.\n', 'src/a.py': 'def a():\n    return 1\n' });
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Light', '--git', repo.url], { root });
    expect(r.code).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  // The fast path normally runs from one bundle (src/cli/boot.ts), where the trace sees only the
  // packages it requires; `separately` runs the same modules one by one so each load shows.
  // (test/e2e/bundle.test.ts checks the bundle keeps every module as lazy as its import.)
  function modulesLoadedBy(args: string[], separately = false): string[] {
    const trace = join(tmp.path, `trace-${args.join('-').replace(/[^a-z]/gi, '')}-${separately}.txt`);
    const r = spawnSync(process.execPath, ['--import', join(PROJECT, 'test/helpers/trace-imports.mjs'), BIN, ...args, '--root', root, '--json'], {
      env: { ...process.env, TKOMA_TRACE_FILE: trace, TKOMA_REF_EMBEDDER: 'none', ...(separately ? { TKOMA_REF_NO_BUNDLE: '1' } : {}) },
      encoding: 'utf8',
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    return readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  }

  for (const args of [['topic', 'list'], ['get', '--topic', 'topic-light', '--path', 'README.md']]) {
    it(`${args.join(' ')} runs on the fast path: no oclif, no heavy module`, () => {
      const loaded = modulesLoadedBy(args);
      expect(loaded).toContain('../dist/boot.cjs'); // the trace works
      for (const heavy of HEAVY.concat('@oclif/core')) expect(loaded.filter((m) => m.includes(heavy)), heavy).toEqual([]);
    });
  }

  for (const args of [['topic', 'recent'], ['topic', 'show', 'topic-light'], ['skill']]) {
    it(`${args.join(' ')} loads no heavy module`, () => {
      const loaded = modulesLoadedBy(args);
      expect(loaded.some((m) => m.includes('@oclif/core'))).toBe(true); // the trace works
      for (const heavy of HEAVY) expect(loaded.filter((m) => m.includes(heavy)), heavy).toEqual([]);
    });
  }

  it('search does load the index (the trace can see heavy modules), and skips oclif', () => {
    const loaded = modulesLoadedBy(['search', 'text', '--topic', 'topic-light'], true);
    expect(loaded.some((m) => m.includes('/lib/index/bm25'))).toBe(true);
    expect(loaded.filter((m) => m.includes('@oclif/core'))).toEqual([]);
  });

  it('bundled, search requires the stemmer but neither oclif nor vector, grammar or model packages', () => {
    const loaded = modulesLoadedBy(['search', 'text', '--topic', 'topic-light', '--no-server']);
    expect(loaded).toContain('../dist/boot.cjs');
    expect(loaded).toContain('stemmer'); // the tokenizer, required from the bundle: the trace works
    expect(loaded.filter((m) => m.endsWith('/dist/cli/searching.js'))).toEqual([]); // not the separate modules
    for (const heavy of HEAVY.concat('@oclif/core')) {
      expect(loaded.filter((m) => m.includes(heavy)), heavy).toEqual([]);
    }
  });

  // A read-only search of a healthy root given its topic needs no git, locking, recovery, segment
  // builder, ANN or compaction code, vector builder or embedding cache.
  const WRITERS = [
    '/lib/store/root.js',
    '/lib/root-git.js',
    '/lib/git-config.js',
    '/lib/git-refs.js',
    '/lib/mutation.js',
    '/lib/mutation/recover.js',
    '/lib/mutation/journal.js',
    '/lib/mutation/run.js',
    '/lib/lock.js',
    '/lib/index/bm25/segment.js',
    '/lib/index/bm25/term-count.js',
    '/lib/index/ann.js',
    '/lib/index/compact.js',
    '/lib/vectors/builder.js',
    '/lib/vectors/status.js',
    '/lib/embedding/cache.js',
  ];

  it('search of a root with nothing to recover loads no writer module', () => {
    const loaded = modulesLoadedBy(['search', 'text', '--topic', 'topic-light', '--no-server'], true);
    expect(loaded.some((m) => m.includes('/lib/search/search.js'))).toBe(true); // the trace works
    for (const w of WRITERS) expect(loaded.filter((m) => m.endsWith(w)), w).toEqual([]);
  });

  it('search still recovers what a dead writer left behind', () => {
    // The pid of a process that has exited: its staging folder is a dead writer's leftover.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const staged = join(root, '.tkoma', 'staging', `fetch.${dead}.0123abcd`);
    mkdirSync(staged, { recursive: true });
    const loaded = modulesLoadedBy(['search', 'text', '--topic', 'topic-light', '--no-server'], true);
    expect(loaded.some((m) => m.endsWith('/lib/mutation/recover.js'))).toBe(true);
    expect(existsSync(staged)).toBe(false);
  });
});
