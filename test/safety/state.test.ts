/**
 * Hostile damage to the tool's state (issue 25, item 5), through the CLI: an index file replaced
 * by a link to /dev/zero (read without bound before) or by a FIFO (an open that never returns),
 * `head.json` as a folder, `.tkoma` as a regular file. Index files are opened only as regular
 * files, not through links: search answers, the index is repaired; what cannot be repaired by the
 * tool is DAMAGED_STATE naming the path, never INTERNAL. Each search runs under a generous limit so
 * that the unbounded read of before fails the test instead of eating the machine.
 */
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir('tkoma-state-');
const root = join(tmp.path, 'kb');
const topicDir = (): string => join(root, '.tkoma', 'index', 'topics', 'topic-levers');

beforeAll(async () => {
  await freshRoot(root);
  const repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Levers\n\nThe fulcrum balances the lever.\n' });
  const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Levers', '--git', repo.url], { root });
  expect(r.code, r.stdout + r.stderr).toBe(0);
});
afterAll(() => tmp.cleanup());

/** The CLI, killed after `limitMs` (a read without bound is the failure being tested, not slowness). */
function searchWithin(limitMs: number): Promise<{ code: number | null; json: any; killed: boolean; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'search', 'fulcrum', '--topic', 'topic-levers', '--json', '--no-server', '--root', root], {
      env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1', NODE_OPTIONS: '--max-old-space-size=512' },
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, json, killed, stderr });
    });
  });
}

function segmentFile(ext: string): string {
  const name = readdirSync(topicDir()).find((n) => n.endsWith(`.${ext}`));
  expect(name, `a .${ext} file in ${readdirSync(topicDir()).join(', ')}`).toBeTruthy();
  return join(topicDir(), name!);
}

describe('index files are opened only as regular files', () => {
  for (const ext of ['lex', 'rec', 'txt']) {
    for (const kind of ['a link to /dev/zero', 'a FIFO'] as const) {
      it(`seg-*.${ext} replaced by ${kind}: search answers and the index is repaired`, async () => {
        const file = segmentFile(ext);
        rmSync(file);
        if (kind === 'a FIFO') {
          await new Promise<void>((res, rej) => spawn('mkfifo', [file]).on('close', (c) => (c === 0 ? res() : rej(new Error('mkfifo failed')))));
        } else symlinkSync('/dev/zero', file);
        const r = await searchWithin(60_000);
        expect(r.killed, r.stderr).toBe(false);
        expect(r.code, r.stderr).toBe(0);
        expect(r.json.results[0].path).toBe('README.md');
        expect(r.json.results[0].snippet).toMatch(/fulcrum/);
        for (const n of readdirSync(topicDir())) expect(lstatSync(join(topicDir(), n)).isFile() || lstatSync(join(topicDir(), n)).isDirectory(), n).toBe(true);
      });
    }
  }

  it('head.json as a folder: search answers and the head is written again as a file', async () => {
    const head = join(topicDir(), 'head.json');
    rmSync(head);
    mkdirSync(join(head, 'inside'), { recursive: true });
    const r = await searchWithin(60_000);
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(r.json.results[0].path).toBe('README.md');
    expect(lstatSync(head).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(head, 'utf8')).topic).toBe('topic-levers');
  });

  it('.tkoma as a regular file: DAMAGED_STATE naming it, and the file is left alone', async () => {
    const state = join(root, '.tkoma');
    // The real state is put back after.
    const saved = join(mkdtempSync(join(tmp.path, 'aside-')), 'tkoma');
    renameSync(state, saved);
    writeFileSync(state, 'not a folder\n');
    try {
      const r = await searchWithin(60_000);
      expect(r.code).not.toBe(0);
      expect(r.json.error.code).toBe('DAMAGED_STATE');
      expect(r.json.error.message).toMatch(/\.tkoma/);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(readFileSync(state, 'utf8')).toBe('not a folder\n');
    } finally {
      rmSync(state, { force: true });
      renameSync(saved, state);
    }
  });
});
