/**
 * SIGINT and SIGTERM from outside: during a slow web fetch (a local server that never finishes
 * its answer), and while a mutation holds the write lock and its journal (the `pause@<point>`
 * form of the crash hook). Also `init` killed part-way, which the next `init` completes.
 */
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { commitCount, crashAt, createArgs, expectConsistent, leftovers, mustRun, snapshot, start } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

describe('signals from outside', () => {
  const tmp = tmpDir('tkoma-crash-signals-');
  const root = join(tmp.path, 'kb');
  let server: Server;
  let base = '';
  let arrived: (() => void) | null = null;
  let keepSnap: Record<string, string>;

  beforeAll(async () => {
    // Answers /slow with headers and half a page, then nothing: the fetch is under way for good.
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.write('<html><body><main><h1>Slow</h1><p>first half');
      arrived?.();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const keep = makeRepo(join(tmp.path, 'keep-up'), { 'README.md': '# Keeper\n\nAardvark field notes.\n' });
    const target = makeRepo(join(tmp.path, 'target-up'), { 'README.md': '# Target\n\nBaseline words.\n' });
    await freshRoot(root);
    await mustRun(createArgs('keep', keep.url), root);
    await mustRun(createArgs('target', target.url), root);
    target.commit({ 'docs/more.md': '# More\n\nLemurs.\n' });
    keepSnap = snapshot(join(root, 'references'));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    tmp.cleanup();
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} during a slow fetch leaves nothing behind`, async () => {
      const before = commitCount(root);
      const came = new Promise<void>((r) => (arrived = r));
      const run = start(['topic', 'create', '--yes', '--json', '--input', JSON.stringify({ topic_id: `slow-${signal.toLowerCase()}`, title: 'Slow', sources: [{ type: 'web', url: `${base}/slow` }] })], {
        root,
      });
      await came;
      expect(leftovers(root).some((l) => l.startsWith('staging/'))).toBe(true); // the fetch is staged
      run.child.kill(signal);
      const r = await run.done;
      expect(r.signal).toBe(signal);
      await expectConsistent(root, ['keep', 'target']);
      expect(commitCount(root)).toBe(before);
      expect(snapshot(join(root, 'references'))).toEqual(keepSnap);
    });
  }

  const PAUSES: { signal: NodeJS.Signals; point: string; args: string[] }[] = [
    { signal: 'SIGTERM', point: 'update:before-commit', args: ['topic', 'update', 'target', '--title', 'Half', '--json'] },
    { signal: 'SIGINT', point: 'refresh:aside', args: ['refresh', 'target', '--json'] },
    { signal: 'SIGTERM', point: 'delete:staged', args: ['delete', 'target', '--yes', '--json'] },
  ];
  for (const { signal, point, args } of PAUSES) {
    it(`${signal} while holding the lock at ${point}: the next command puts everything back`, async () => {
      const before = commitCount(root);
      const run = start(args, { root, env: { TKOMA_REF_CRASH_AT: `pause@${point}` } });
      await run.waitForStderr(/paused at/);
      expect(leftovers(root)).toEqual(expect.arrayContaining([`journal/${point.split(':')[0]}.json`, 'write.lock']));
      run.child.kill(signal);
      expect((await run.done).signal).toBe(signal);
      await expectConsistent(root, ['keep', 'target']);
      expect(commitCount(root)).toBe(before);
      expect(snapshot(join(root, 'references'))).toEqual(keepSnap);
    });
  }
});

describe('init killed part-way', () => {
  const tmp = tmpDir('tkoma-crash-init-');
  afterAll(() => tmp.cleanup());

  for (const point of ['init:copied', 'init:before-commit', 'init:committed']) {
    it(`killed at ${point}: other commands refuse, the next init completes it`, async () => {
      const root = join(tmp.path, point.replace(':', '-'));
      await crashAt(point, ['init', '--json'], root);
      const list = await cli(['topic', 'list', '--json'], { root });
      expect(list.code).toBe(6);
      expect(list.json.error.code).toBe('ROOT_NOT_INITIALISED');
      const init = await mustRun(['init', '--json'], root);
      expect(init.json.created).toBe(true);
      expect(git(root, 'rev-list', '--count', 'HEAD')).toBe('1');
      expect(init.json.commit).toBe(git(root, 'rev-parse', 'HEAD'));
      expect(existsSync(join(root, 'skills', 'reference-researcher', 'SKILL.md'))).toBe(true);
      await expectConsistent(root, []);
      expect((await mustRun(['init', '--json'], root)).json.created).toBe(false);
    });
  }
});
