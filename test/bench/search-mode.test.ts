/**
 * `mode` of searchReferences (and `search --mode`): the benchmarks measure each half of hybrid
 * search through the real path, so lexical-only and vector-only must really drop the other list.
 */
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { forgetTopicIndex, syncIndex } from '../../src/lib/index/service.js';

import type { Embedder } from '../../src/lib/embedding/types.js';
import { TkomaError } from '../../src/lib/errors.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { type EmbedServer, makeTmpRoot, SAMPLE_FILES, startBowEmbedder, writeTopic } from '../helpers/index-topics.js';
import { freshRoot } from '../helpers/roots.js';

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
  await writeTopic(root, { id: 'topic-widgetry', title: 'Widgetry', body: '# Widgetry\n\nTerminal widgets.', files: SAMPLE_FILES });
  await syncIndex(root, { embedder }); // searches embed only the question: vectors are built before
});
afterEach(() => {
  forgetTopicIndex(root);
  cleanup();
});

const ask = (mode: 'hybrid' | 'lexical' | 'vector' | undefined, emb: Embedder | null = embedder) =>
  searchReferences(root, { question: 'resize grid cells scrolling', topic: 'topic-widgetry', embedder: emb, explain: true, mode, limit: 20 });

describe('searchReferences mode', () => {
  it('hybrid (the default) uses both lists', async () => {
    const res = await ask(undefined);
    expect(res.vector_search.available).toBe(true);
    expect(res.results.some((h) => h.explain!.lexical && h.explain!.vector)).toBe(true);
    expect((await ask('hybrid')).results.map((h) => h.id)).toEqual(res.results.map((h) => h.id));
  });

  it('lexical uses BM25 only and never embeds the question', async () => {
    await ask('hybrid'); // builds the vectors
    const before = server.texts.length;
    const res = await ask('lexical');
    expect(server.texts.length).toBe(before);
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results.every((h) => h.explain!.lexical !== null && h.explain!.vector === null)).toBe(true);
    expect(res.vector_search).toMatchObject({ available: false, reason: 'lexical mode requested' });
  });

  it('vector uses nearest neighbours only', async () => {
    const res = await ask('vector');
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results.every((h) => h.explain!.vector !== null && h.explain!.lexical === null)).toBe(true);
  });

  it('vector without an embedder is EMBEDDER_UNAVAILABLE; an unknown mode is INVALID_ENUM', async () => {
    await expect(ask('vector', null)).rejects.toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
    const bad = await ask('fuzzy' as 'hybrid').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(TkomaError);
    expect((bad as TkomaError).code).toBe('INVALID_ENUM');
  });
});

describe('search --mode through the binary', () => {
  const tmp = tmpDir();
  const kb = join(tmp.path, 'kb');
  beforeAll(async () => {
    await freshRoot(kb);
    const repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Gears\n\nGears mesh with sprockets on an axle.\n' });
    expect((await cli(['topic', 'create', '--yes', '--json', '--title', 'Gears', '--git', repo.url], { root: kb })).code).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it('accepts lexical, rejects vector without an embedder and unknown modes', async () => {
    const lexical = await cli(['search', 'sprocket axle', '--topic', 'topic-gears', '--mode', 'lexical', '--json'], { root: kb });
    expect(lexical.code).toBe(0);
    expect(lexical.json.results[0].path).toBe('README.md');
    expect(lexical.json.vector_search.reason).toBe('lexical mode requested');
    const vector = await cli(['search', 'sprocket axle', '--topic', 'topic-gears', '--mode', 'vector', '--json'], { root: kb });
    expect(vector.code).toBe(8);
    expect(vector.json.error.code).toBe('EMBEDDER_UNAVAILABLE');
    const bad = await cli(['search', 'sprocket', '--mode', 'sideways', '--json'], { root: kb });
    expect(bad.code).not.toBe(0);
  });
});
