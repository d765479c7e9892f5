import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type DirEvent, type DirWatcher, startWatchTree, watchTree } from '../../src/lib/dir-watch.js';
import { tmpDir } from '../helpers/tmp.js';

describe('watchTree: one watch per folder', () => {
  let watcher: DirWatcher | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    cleanup?.();
  });

  async function start(dir: string) {
    const events: [DirEvent, string][] = [];
    const errors: unknown[] = [];
    const waiters: { pred: (e: [DirEvent, string]) => boolean; resolve: () => void }[] = [];
    watcher = await watchTree(dir, {
      ignored: (p) => p.split(sep).includes('.git'),
      onEvent: (event, path) => {
        events.push([event, path]);
        for (const w of waiters.filter((x) => x.pred([event, path]))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      },
      onError: (e) => errors.push(e),
    });
    /** Resolves when an event like this has arrived (already or later). */
    const heard = (event: DirEvent, path: string): Promise<void> =>
      events.some(([e, p]) => e === event && p === path) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pred: ([e, p]) => e === event && p === path, resolve }));
    return { events, errors, heard };
  }

  it('watches folders, not files, and hears files added and changed in them', async () => {
    const t = tmpDir('tkoma-dirwatch-');
    cleanup = t.cleanup;
    for (const f of ['a', 'b']) {
      mkdirSync(join(t.dir, 'topic-x', f), { recursive: true });
      for (let i = 0; i < 40; i++) writeFileSync(join(t.dir, 'topic-x', f, `${i}.md`), `# ${i}\n`);
    }
    mkdirSync(join(t.dir, 'topic-x', '.git', 'objects'), { recursive: true });
    const w = await start(t.dir);
    // the root, topic-x, a, b: not 80 files, not .git
    expect(watcher!.folders).toBe(4);
    writeFileSync(join(t.dir, 'topic-x', 'a', 'new.md'), 'new\n');
    await w.heard('add', join(t.dir, 'topic-x', 'a', 'new.md'));
    writeFileSync(join(t.dir, 'topic-x', 'b', '3.md'), 'edited\n');
    await w.heard('change', join(t.dir, 'topic-x', 'b', '3.md'));
    rmSync(join(t.dir, 'topic-x', 'a', '1.md'));
    await w.heard('unlink', join(t.dir, 'topic-x', 'a', '1.md'));
    writeFileSync(join(t.dir, 'topic-x', '.git', 'objects', 'x'), 'x');
    expect(w.events.filter(([, p]) => p.includes(`${sep}.git`))).toEqual([]);
    expect(w.errors).toEqual([]);
  });

  it('watches folders that appear later and forgets folders that go', async () => {
    const t = tmpDir('tkoma-dirwatch-');
    cleanup = t.cleanup;
    const w = await start(t.dir);
    expect(watcher!.folders).toBe(1);
    // A topic moved in whole (as a create renames its staging folder into place).
    const staged = join(t.dir, '..', `${t.dir.split(sep).at(-1)}-staging`);
    mkdirSync(join(staged, 'docs'), { recursive: true });
    writeFileSync(join(staged, 'docs', 'a.md'), 'a\n');
    renameSync(staged, join(t.dir, 'topic-y'));
    await w.heard('addDir', join(t.dir, 'topic-y'));
    // topic-y and its docs folder are watched now: an edit deep inside is heard.
    await expect.poll(() => watcher!.folders).toBe(3);
    writeFileSync(join(t.dir, 'topic-y', 'docs', 'b.md'), 'b\n');
    await w.heard('add', join(t.dir, 'topic-y', 'docs', 'b.md'));
    rmSync(join(t.dir, 'topic-y'), { recursive: true });
    await w.heard('unlinkDir', join(t.dir, 'topic-y'));
    expect(watcher!.folders).toBe(1);
  });

  it('started, answers at once with its root watched and the folders under it coming; ready once all are', async () => {
    const t = tmpDir('tkoma-dirwatch-');
    cleanup = t.cleanup;
    for (let i = 0; i < 30; i++) mkdirSync(join(t.dir, `topic-${i}`, 'docs'), { recursive: true });
    const events: [DirEvent, string][] = [];
    const w = startWatchTree(t.dir, { ignored: () => false, onEvent: (e, p) => events.push([e, p]), onError: (e) => events.push(['change', String(e)]) });
    watcher = w;
    // Nothing past the first await has run: only the root's own watch is on.
    expect(w.folders).toBe(1);
    await w.ready;
    expect(w.folders).toBe(61);
    writeFileSync(join(t.dir, 'topic-29', 'docs', 'late.md'), 'x');
    while (!events.some(([e, p]) => e === 'add' && p === join(t.dir, 'topic-29', 'docs', 'late.md'))) await new Promise((r) => setTimeout(r, 10));
  });
});
