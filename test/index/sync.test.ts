import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Embedder } from '../../src/lib/embedding/types.js';
import { forgetTopicIndex, indexDir, indexStatus, lexicallyCurrent, liveChunkCount, loadHead, loadTopicIndex, removeTopicIndex, syncIndex, topicIndexDir } from '../../src/lib/index/service.js';
import { rebuildIndex } from '../../src/lib/vectors/rebuild.js';
import { listingByFind } from '../../src/lib/index/listing-prefetch.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { type EmbedServer, makeTmpRoot, SAMPLE_FILES, startBowEmbedder, writeTopic } from '../helpers/index-topics.js';

let server: EmbedServer;
let embedder: Embedder;

beforeAll(async () => {
  ({ server, embedder } = await startBowEmbedder(64));
});
afterAll(async () => {
  await server.close();
});

let root: string;
let cleanup: () => void;
beforeEach(async () => {
  ({ root, cleanup } = makeTmpRoot());
  server.texts.length = 0;
  await writeTopic(root, {
    id: 'topic-widgetry',
    title: 'Widgetry - terminal widgets',
    body: '# Widgetry\n\nA terminal widget toolkit for Rust, Python and TypeScript.',
    tags: ['tui', 'widgets'],
    files: SAMPLE_FILES,
  });
});
afterEach(() => {
  forgetTopicIndex(root);
  cleanup();
});

const search = (question: string, extra: Record<string, unknown> = {}) =>
  searchReferences(root, { question, topic: 'topic-widgetry', embedder, ...extra });

describe('syncIndex', () => {
  it('indexes every reference file, skipping topic.md, the manifest, symlinks and binaries', async () => {
    const dir = join(root, 'references', 'topic-widgetry');
    writeFileSync(join(root, 'outside.md'), '# Secret\n\nsupersecretword must never be indexed');
    symlinkSync(join(root, 'outside.md'), join(dir, 'linked.md'));
    writeFileSync(join(dir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));

    const report = await syncIndex(root, { embedder });
    const counts = report.topics['topic-widgetry']!;
    expect(counts.files).toBe(Object.keys(SAMPLE_FILES).length + 1); // + image.png (no chunks)
    expect(counts.added).toBe(counts.files);
    expect(counts.chunks).toBeGreaterThanOrEqual(Object.keys(SAMPLE_FILES).length);
    expect(counts.vectors).toBe(counts.chunks);
    expect(counts.embedded).toBeGreaterThan(0);

    const head = (await loadHead(root, 'topic-widgetry'))!;
    expect([...head.files.paths()].sort()).toEqual([...Object.keys(SAMPLE_FILES), 'image.png'].sort());
    expect(head.files.get('image.png')!.skipped).toBe('binary');
    expect(head.files.get('topic.md')).toBeUndefined();
    expect(head.files.get('linked.md')).toBeUndefined();

    for (const embedderChoice of [embedder, null]) {
      const res = await search('supersecretword', { embedder: embedderChoice });
      expect(res.results.map((r) => r.path)).not.toContain('linked.md');
      expect(res.results.map((r) => r.snippet).join('\n')).not.toContain('supersecretword');
    }

    const status = await indexStatus(root);
    expect(status).toMatchObject({ topics: 1, files: counts.files, chunks: counts.chunks, vectors: counts.chunks, embedder: embedder.key });
    expect(status.pending).toEqual({ changed: 0, added: 0, removed: 0 });
    expect(status.bytes_on_disk).toBeGreaterThan(0);
  });

  it('a second sync with nothing changed does nothing', async () => {
    await syncIndex(root, { embedder });
    const before = (await loadHead(root, 'topic-widgetry'))!.generation;
    const report = await syncIndex(root, { embedder });
    expect(report.topics['topic-widgetry']).toMatchObject({ added: 0, changed: 0, removed: 0, embedded: 0 });
    expect((await loadHead(root, 'topic-widgetry'))!.generation).toBe(before);
  });

  it('picks up hand edits (change, add, delete) on the next search', async () => {
    await syncIndex(root, { embedder });
    expect((await search('flexbox')).results[0]?.path).toBe('docs/guide/layout.md');
    const dir = join(root, 'references', 'topic-widgetry');
    writeFileSync(join(dir, 'src/config.ts'), 'export function loadSettings(file: string) {\n  return zanzibarQuokka(file);\n}\n');
    writeFileSync(join(dir, 'docs/new-page.md'), '# Keyboard shortcuts\n\nPress ctrl-q to quit the pangolin viewer.\n');
    rmSync(join(dir, 'docs/guide/layout.md'));

    const changed = await search('zanzibarQuokka');
    expect(changed.results[0]?.path).toBe('src/config.ts');
    expect((await search('pangolin viewer')).results[0]?.path).toBe('docs/new-page.md');
    expect((await search('flexbox')).results.map((r) => r.path)).not.toContain('docs/guide/layout.md');
    const gone = await search('validateConfig', { embedder: null });
    expect(gone.results.map((r) => r.snippet).join('\n')).not.toContain('validateConfig');

    const report = await syncIndex(root, { embedder });
    expect(report.topics['topic-widgetry']).toMatchObject({ added: 0, changed: 0, removed: 0 });
    const status = await indexStatus(root);
    expect(status.pending).toEqual({ changed: 0, added: 0, removed: 0 });
    // Search's coverage counts a loaded index's chunk map instead of walking the file table.
    const head = (await loadHead(root, 'topic-widgetry'))!;
    const loaded = (await loadTopicIndex(root, 'topic-widgetry', head))!;
    expect(liveChunkCount(head)).toBeGreaterThan(0);
    expect(loaded.index.chunks.size).toBe(liveChunkCount(head));
  });

  it('counts pending changes in index status by content hash', async () => {
    await syncIndex(root, { embedder });
    const dir = join(root, 'references', 'topic-widgetry');
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'README.md'), future, future); // touched, same content
    writeFileSync(join(dir, 'src/lib.rs'), '// changed\n');
    writeFileSync(join(dir, 'extra.txt'), 'new file\n');
    rmSync(join(dir, 'src/render.py'));
    expect((await indexStatus(root)).pending).toEqual({ changed: 1, added: 1, removed: 1 });
  });

  it('never re-embeds unchanged text', async () => {
    await syncIndex(root, { embedder });
    const first = server.texts.length;
    expect(first).toBeGreaterThan(0);

    // Same content, new mtime: hashed, found equal, nothing embedded.
    const dir = join(root, 'references', 'topic-widgetry');
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'README.md'), future, future);
    const touched = await syncIndex(root, { embedder });
    expect(touched.topics['topic-widgetry']).toMatchObject({ changed: 0, embedded: 0 });
    expect(server.texts.length).toBe(first);

    // One file changed: only its new chunk text reaches the model.
    writeFileSync(join(dir, 'src/lib.rs'), '/// A grid.\npub struct Grid { cells: Vec<Cell> }\n');
    const one = await syncIndex(root, { embedder });
    const head = (await loadHead(root, 'topic-widgetry'))!;
    expect(one.topics['topic-widgetry']).toMatchObject({ changed: 1, embedded: head.files.get('src/lib.rs')!.chunkCount });
    const fresh = server.texts.slice(first);
    expect(fresh.length).toBeGreaterThan(0);
    for (const t of fresh) expect('/// A grid.\npub struct Grid { cells: Vec<Cell> }\n').toContain(t.trim());

    // A rebuild re-chunks everything but embeds nothing: the cache holds every hash.
    const n = server.texts.length;
    const rebuilt = await rebuildIndex(root, { embedder });
    expect(rebuilt.embedded).toBe(0);
    expect(server.texts.length).toBe(n);
    expect(rebuilt.topics['topic-widgetry']!.vectors).toBe(rebuilt.topics['topic-widgetry']!.chunks);
  });

  it('rebuild gives identical search results', async () => {
    await syncIndex(root, { embedder });
    const questions = ['parse config file', 'terminal border style', 'resize grid cells', 'scrolling lists'];
    const key = (r: Awaited<ReturnType<typeof search>>) => r.results.map((h) => `${h.path}:${h.start_line}-${h.end_line}:${h.score}`);
    const before = await Promise.all(questions.map(async (q) => key(await search(q, { all: true, topic: undefined }))));
    await rebuildIndex(root, { embedder });
    forgetTopicIndex(root);
    const after = await Promise.all(questions.map(async (q) => key(await search(q, { all: true, topic: undefined }))));
    expect(after).toEqual(before);
    expect(before.every((r) => r.length > 0)).toBe(true);

    // Also after incremental updates: an edited index ranks like one built from scratch.
    const dir = join(root, 'references', 'topic-widgetry');
    writeFileSync(join(dir, 'src/render.py'), 'def draw_border(widget, style):\n    """Border with a given style."""\n    return style\n');
    rmSync(join(dir, 'docs/guide/layout.md'));
    writeFileSync(join(dir, 'docs/scroll.md'), '# Scrolling\n\nLists scroll; the terminal keeps the cursor visible.\n');
    // Search syncs lexically only; the builder (here: a sync with the embedder) adds the vectors.
    await syncIndex(root, { embedder });
    const edited = await Promise.all(questions.map(async (q) => key(await search(q, { all: true, topic: undefined }))));
    await rebuildIndex(root, { embedder });
    forgetTopicIndex(root);
    const rebuilt = await Promise.all(questions.map(async (q) => key(await search(q, { all: true, topic: undefined }))));
    expect(rebuilt).toEqual(edited);
  });

  it('repairs truncated or garbage index files', async () => {
    await syncIndex(root, { embedder });
    const expected = (await search('parseConfig')).results.map((r) => r.path);
    const tdir = topicIndexDir(root, 'topic-widgetry');
    const damage = (name: string, how: 'truncate' | 'garbage') => {
      const file = join(tdir, name);
      const text = readFileSync(file);
      writeFileSync(file, how === 'truncate' ? text.subarray(0, Math.floor(text.length / 2)) : 'garbage {{{');
    };
    // Segment and hnsw files carry a generation in their name: find the current one each time.
    const current = (name: string): string =>
      name.startsWith('.') ? readdirSync(tdir).find((n) => n.endsWith(name) && (name === '.hnsw' || n.startsWith('seg-')))! : name;

    const documents = () => server.texts.filter((t) => t !== 'parseConfig').length; // minus the queries
    const texts = documents();
    for (const [file, how, repaired] of [
      ['.lex', 'truncate', ['lexical']],
      ['.hnsw', 'garbage', ['ann']],
      ['ann.json', 'truncate', ['ann']],
      ['.rec', 'garbage', ['chunks']],
      ['.txt', 'truncate', ['chunks']],
      ['head.json', 'truncate', []],
    ] as const) {
      damage(current(file), how);
      forgetTopicIndex(root); // a fresh process: nothing in memory
      const res = await search('parseConfig');
      expect(res.results.map((r) => r.path), `after ${how} ${file}`).toEqual(expected);
      expect(res.vector_search.available, `after ${how} ${file}`).toBe(true);
      // The same damage seen by a sync is reported as repaired.
      damage(current(file), how);
      forgetTopicIndex(root);
      const report = await syncIndex(root, { embedder, verify: true });
      expect(report.topics['topic-widgetry']!.repaired, `${how} ${file}`).toEqual(repaired);
      if (file === 'head.json') expect(report.topics['topic-widgetry']!.added).toBe(Object.keys(SAMPLE_FILES).length);
    }
    expect(documents()).toBe(texts); // vectors came back from the embedding cache
    // The repairs were written back: a fresh load needs nothing more.
    forgetTopicIndex(root);
    const again = await syncIndex(root, { embedder, verify: true });
    expect(again.topics['topic-widgetry']!.repaired).toEqual([]);
  });

  it('stamps the head with the digest of a find listing that matched it, and a search still sees an edit', async () => {
    const dir = join(root, 'references', 'topic-widgetry');
    await syncIndex(root, { embedder });
    const listing = (await listingByFind(dir))!;
    expect((await loadHead(root, 'topic-widgetry'))!.files.listingDigest).toBe(listing.digest());
    expect(await lexicallyCurrent(root, ['topic-widgetry'])).toBe(true);
    writeFileSync(join(dir, 'src', 'config.ts'), 'export const parseConfig = () => 42; // edited\n');
    expect(await lexicallyCurrent(root, ['topic-widgetry'])).toBe(false);
    const report = await syncIndex(root, { embedder });
    expect(report.topics['topic-widgetry']).toMatchObject({ changed: 1 });
    expect((await loadHead(root, 'topic-widgetry'))!.files.listingDigest).toBe((await listingByFind(dir))!.digest());
  });

  // A server's first reconcile at 300k chunks parsed 20 MB of cold columns to learn "nothing moved".
  it('a sync whose listing is the one the head was stamped with compares no file and reads no cold column', async () => {
    const dir = join(root, 'references', 'topic-widgetry');
    await syncIndex(root, { embedder });
    const file = join(topicIndexDir(root, 'topic-widgetry'), 'head.json');
    // Cold columns made unreadable (hashes of the wrong size): read, they would make every row
    // unknown and every file re-read. Not read, the head is left as it is.
    const damaged = readFileSync(file, 'utf8').replace(/^"sha256":"[0-9a-f]*"/m, '"sha256":"00"');
    writeFileSync(file, damaged);
    forgetTopicIndex(root);
    expect((await syncIndex(root, { embedder })).topics['topic-widgetry']).toMatchObject({ added: 0, changed: 0, removed: 0 });
    expect(readFileSync(file, 'utf8')).toBe(damaged);
    // Once a file moves, the listing differs: the files are compared, and the damage read and repaired.
    utimesSync(join(dir, 'README.md'), new Date(4_000_000), new Date(4_000_000));
    await syncIndex(root, { embedder });
    expect(readFileSync(file, 'utf8')).not.toBe(damaged);
    expect((await loadHead(root, 'topic-widgetry'))!.files.get('README.md')!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await search('parseConfig')).results.length).toBeGreaterThan(0);
  });

  it('re-chunks a topic whose head is of an older format (6: chunks made before includes were resolved)', async () => {
    await syncIndex(root, { embedder });
    const file = join(topicIndexDir(root, 'topic-widgetry'), 'head.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), format: 6 }));
    forgetTopicIndex(root);
    const report = await syncIndex(root, { embedder });
    expect(report.topics['topic-widgetry']!.added).toBe(Object.keys(SAMPLE_FILES).length);
    expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe(7);
    expect((await search('parseConfig')).results.length).toBeGreaterThan(0);
  });

  it('reads a head written whole (before lines) as it is, and a sync writes it in lines without re-chunking', async () => {
    await syncIndex(root, { embedder });
    const file = join(topicIndexDir(root, 'topic-widgetry'), 'head.json');
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify(value));
    forgetTopicIndex(root);
    expect((await loadHead(root, 'topic-widgetry'))!.files.size).toBe(Object.keys(SAMPLE_FILES).length);
    const report = await syncIndex(root, { embedder });
    expect(report.topics['topic-widgetry']).toMatchObject({ added: 0, changed: 0, removed: 0 });
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').length).toBeGreaterThan(5);
    expect(JSON.parse(text)).toEqual(value);
    expect((await search('parseConfig')).results.length).toBeGreaterThan(0);
  });

  it('rebuilds an index of another format, and survives garbage meta.json and notes.json', async () => {
    await syncIndex(root, { embedder });
    writeFileSync(join(indexDir(root), 'meta.json'), '{"format": 99}');
    forgetTopicIndex(root);
    const report = await syncIndex(root, { embedder });
    expect(report.topics['topic-widgetry']!.added).toBe(Object.keys(SAMPLE_FILES).length);
    expect(report.embedded).toBe(0); // the embedding cache survives

    writeFileSync(join(indexDir(root), 'meta.json'), 'garbage');
    writeFileSync(join(indexDir(root), 'notes.json'), 'not json');
    const again = await syncIndex(root, { embedder });
    expect(again.notes.updated).toBe(1);
    expect(again.embedded).toBe(0);
    expect((await search('parseConfig')).results.length).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(indexDir(root), 'meta.json'), 'utf8'))).toMatchObject({ embedder: embedder.key });
  });

  it('drops removed topics and removeTopicIndex deletes one', async () => {
    await writeTopic(root, { id: 'topic-other', title: 'Other', body: 'Other things.', files: { 'a.md': '# A\n\nalpha' } });
    await syncIndex(root, { embedder });
    expect(existsSync(topicIndexDir(root, 'topic-other'))).toBe(true);
    rmSync(join(root, 'references', 'topic-other'), { recursive: true });
    const report = await syncIndex(root, { embedder });
    expect(report.removed_topics).toEqual(['topic-other']);
    expect(existsSync(topicIndexDir(root, 'topic-other'))).toBe(false);

    await removeTopicIndex(root, 'topic-widgetry');
    expect(existsSync(topicIndexDir(root, 'topic-widgetry'))).toBe(false);
  });

  it('serialises concurrent syncs of one root', async () => {
    const reports = await Promise.all([syncIndex(root, { embedder }), syncIndex(root, { embedder }), syncIndex(root, { embedder })]);
    const added = reports.map((r) => r.topics['topic-widgetry']!.added);
    expect(added.filter((n) => n > 0)).toHaveLength(1);
    expect(existsSync(join(root, '.tkoma', 'index.lock'))).toBe(false);
  });

  it('indexes lexically without an embedder and adds vectors once one is available', async () => {
    const lexical = await syncIndex(root, { embedder: null });
    expect(lexical.topics['topic-widgetry']).toMatchObject({ vectors: 0, embedded: 0 });
    expect(server.texts).toHaveLength(0);
    const res = await searchReferences(root, { question: 'parseConfig', topic: 'topic-widgetry', embedder: null });
    expect(res.vector_search.available).toBe(false);
    expect(res.results.slice(0, 2).map((r) => r.path).sort()).toEqual(['README.md', 'src/config.ts']);

    const later = await syncIndex(root, { embedder });
    expect(later.topics['topic-widgetry']!.vectors).toBe(later.topics['topic-widgetry']!.chunks);
    expect(later.topics['topic-widgetry']!.added).toBe(0);
  });
});
