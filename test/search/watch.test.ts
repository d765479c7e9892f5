import { renameSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Embedder } from '../../src/lib/embedding/types.js';
import { forgetTopicIndex } from '../../src/lib/index/service.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { ignoredPath, startWatch, topicOfPath, type WatchEvent, type Watcher } from '../../src/lib/watch.js';
import { type EmbedServer, makeTmpRoot, SAMPLE_FILES, startBowEmbedder, writeTopic } from '../helpers/index-topics.js';

describe('watch path rules', () => {
  it('maps paths to topics and ignores git and state folders', () => {
    const refs = `${sep}r${sep}references`;
    expect(topicOfPath(refs, `${refs}${sep}topic-a${sep}docs${sep}x.md`)).toBe('topic-a');
    expect(topicOfPath(refs, `${refs}${sep}topic-a`)).toBe('topic-a');
    expect(topicOfPath(refs, refs)).toBeNull();
    expect(topicOfPath(refs, `${sep}elsewhere${sep}x`)).toBeNull();
    expect(ignoredPath(`${refs}${sep}topic-a${sep}.git${sep}HEAD`)).toBe(true);
    expect(ignoredPath(`${sep}r${sep}.tkoma${sep}index${sep}meta.json`)).toBe(true);
    expect(ignoredPath(`${refs}${sep}topic-a${sep}.tkoma-files.jsonl.tmp-12-3`)).toBe(true);
    expect(ignoredPath(`${refs}${sep}topic-a${sep}.tkoma-files.jsonl`)).toBe(false);
  });
});

describe('startWatch', () => {
  let server: EmbedServer;
  let embedder: Embedder;
  beforeAll(async () => {
    ({ server, embedder } = await startBowEmbedder(32, 'bow-watch'));
  });
  afterAll(async () => {
    await server.close();
  });

  let root: string;
  let cleanup: () => void;
  let watcher: Watcher | undefined;
  const events: WatchEvent[] = [];
  let waiters: { pred: (e: WatchEvent) => boolean; resolve: (e: WatchEvent) => void }[] = [];

  /** Resolves on the first event (from now on) that satisfies pred. */
  const next = (pred: (e: WatchEvent) => boolean): Promise<WatchEvent> =>
    new Promise((resolve) => waiters.push({ pred, resolve }));
  const onEvent = (e: WatchEvent): void => {
    events.push(e);
    const [hit, rest] = [waiters.filter((w) => w.pred(e)), waiters.filter((w) => !w.pred(e))];
    waiters = rest;
    for (const w of hit) w.resolve(e);
  };
  const syncedTopic = (id: string, check: (c: { added: number; changed: number; removed: number }) => boolean) => (e: WatchEvent) =>
    e.type === 'sync' && e.topics.includes(id) && check(e.report.topics[id] ?? { added: 0, changed: 0, removed: 0 });

  beforeEach(async () => {
    ({ root, cleanup } = makeTmpRoot());
    events.length = 0;
    waiters = [];
    await writeTopic(root, { id: 'topic-w', title: 'Watched', body: '# Watched\n\nA watched topic.', files: SAMPLE_FILES });
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    forgetTopicIndex(root);
    cleanup();
  });

  it('indexes at start, syncs edited topics after their events, and stops on close', async () => {
    const reconciled = next((e) => e.type === 'reconcile');
    watcher = await startWatch(root, { reconcileSeconds: 3600, embedder, onEvent });
    const first = await reconciled;
    expect(first.type === 'reconcile' && first.report.topics['topic-w']!.added).toBe(Object.keys(SAMPLE_FILES).length);

    const dir = join(root, 'references', 'topic-w');
    const edited = next(syncedTopic('topic-w', (c) => c.changed >= 1));
    writeFileSync(join(dir, 'README.md'), '# Widgetry\n\nNow with an axolotl mode.\n');
    await edited;
    const found = await searchReferences(root, { question: 'axolotl', topic: 'topic-w', embedder: null });
    expect(found.results[0]?.path).toBe('README.md');

    // A rename arrives as unlink + add.
    const renamed = next(syncedTopic('topic-w', (c) => c.added >= 1 || c.removed >= 1));
    renameSync(join(dir, 'src/lib.rs'), join(dir, 'src/grid.rs'));
    await renamed;
    // Both halves may land in one sync or two; wait until the index has both.
    let paths = (await searchReferences(root, { question: 'resize grid cells', topic: 'topic-w', embedder: null })).results.map((r) => r.path);
    while (!paths.includes('src/grid.rs') || paths.includes('src/lib.rs')) {
      await next(syncedTopic('topic-w', () => true));
      paths = (await searchReferences(root, { question: 'resize grid cells', topic: 'topic-w', embedder: null })).results.map((r) => r.path);
    }
    expect(paths).toContain('src/grid.rs');
    expect(paths).not.toContain('src/lib.rs');

    await watcher.close();
    watcher = undefined;
    const count = events.length;
    writeFileSync(join(dir, 'README.md'), '# Widgetry\n\nAfter close.\n');
    // Negative check: three debounce periods without any event.
    await new Promise((r) => setTimeout(r, 700));
    expect(events.length).toBe(count);
  });

  it('finds a change made before it started, once its held first reconcile is let go', async () => {
    // An index of the files as they were, then an edit while nobody watches.
    const dir = join(root, 'references', 'topic-w');
    await searchReferences(root, { question: 'widget', topic: 'topic-w', embedder: null });
    writeFileSync(join(dir, 'README.md'), '# Widgetry\n\nNow with a quokka mode.\n');

    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    watcher = await startWatch(root, { reconcileSeconds: 3600, embedder, onEvent, firstReconcileAfter: hold, vectors: false });
    // Held: the index is as it was, and the lag says a reconcile is due and not yet running.
    expect((await searchReferences(root, { question: 'quokka', topic: 'topic-w', embedder: null, syncFiles: false })).results.map((r) => r.path)).not.toContain('README.md');
    expect(watcher.lag(['topic-w'])).toMatchObject({ syncing: false });
    expect(events.some((e) => e.type === 'reconcile')).toBe(false);

    const reconciled = next((e) => e.type === 'reconcile');
    release();
    const r = await reconciled;
    expect(r.type === 'reconcile' && r.report.topics['topic-w']!.changed).toBe(1);
    expect(watcher.lag(['topic-w'])).toBeNull();
    const found = await searchReferences(root, { question: 'quokka', topic: 'topic-w', embedder: null, syncFiles: false });
    expect(found.results[0]?.path).toBe('README.md');
  });

  it('runs a held first reconcile at once when flushed', async () => {
    const dir = join(root, 'references', 'topic-w');
    await searchReferences(root, { question: 'widget', topic: 'topic-w', embedder: null });
    writeFileSync(join(dir, 'README.md'), '# Widgetry\n\nNow with a wombat mode.\n');
    watcher = await startWatch(root, { reconcileSeconds: 3600, embedder, onEvent, firstReconcileAfter: new Promise(() => undefined), vectors: false });
    await watcher.flush();
    const r = events.find((e) => e.type === 'reconcile');
    expect(r?.type === 'reconcile' && r.report.topics['topic-w']!.changed).toBe(1);
    const found = await searchReferences(root, { question: 'wombat', topic: 'topic-w', embedder: null, syncFiles: false });
    expect(found.results[0]?.path).toBe('README.md');
  });

  it('syncs a topic created while it runs', async () => {
    const reconciled = next((e) => e.type === 'reconcile');
    watcher = await startWatch(root, { reconcileSeconds: 3600, embedder, onEvent });
    await reconciled;
    const created = next(syncedTopic('topic-new', (c) => c.added >= 1));
    await writeTopic(root, { id: 'topic-new', title: 'New', body: '# New\n\nFresh.', files: { 'n.md': '# N\n\nnarwhal facts\n' } });
    await created;
    const res = await searchReferences(root, { question: 'narwhal', topic: 'topic-new', embedder: null });
    expect(res.results[0]?.path).toBe('n.md');
  });
});
