import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Embedder } from '../../src/lib/embedding/types.js';
import { forgetTopicIndex, syncIndex } from '../../src/lib/index/service.js';
import { searchReferences, searchTopics } from '../../src/lib/search/search.js';
import { BAKERY, type EmbedServer, makeTmpRoot, WIDGETRY, startBowEmbedder, writeTopic, writeTopicMd } from '../helpers/index-topics.js';

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
  await writeTopic(root, WIDGETRY);
  await writeTopic(root, BAKERY);
  // Searches never embed documents: vectors come from a sync with the embedder (the builder's job).
  await syncIndex(root, { embedder });
  server.texts.length = 0;
});
afterEach(() => {
  forgetTopicIndex(root);
  cleanup();
});

describe('searchReferences', () => {
  it('answers with the topic note and ranked hits with their provenance', async () => {
    const res = await searchReferences(root, { question: 'resize grid cells', topic: 'topic-widgetry', embedder });
    expect(res.topic).toMatchObject({ topic_id: 'topic-widgetry', title: WIDGETRY.title, status: 'active', is_stale: false, stale_since: null });
    expect(res.topic!.body).toContain('toolkit for terminal');
    expect(res.topics_searched).toEqual(['topic-widgetry']);
    expect(res.vector_search).toMatchObject({ available: true, embedder: embedder.key, coverage: 1 });
    const top = res.results[0]!;
    expect(top).toMatchObject({
      topic_id: 'topic-widgetry',
      path: 'src/lib.rs',
      role: 'code',
      source_url: 'https://example.com/topic-widgetry.git',
      commit: 'a'.repeat(40),
      fetched_at: '2025-06-15T10:00:00Z',
      is_stale: false,
      file_status: 'active',
    });
    expect(top.start_line).toBeGreaterThanOrEqual(1);
    expect(top.end_line).toBeGreaterThanOrEqual(top.start_line);
    expect(top.snippet).toContain('resize');
    expect(top.explain).toBeUndefined();
    expect(res.results.length).toBeLessThanOrEqual(10);
  });

  it('picks the best topic when none is given, and searches all topics with `all`', async () => {
    const picked = await searchReferences(root, { question: 'sourdough starter flour', embedder });
    expect(picked.topic?.topic_id).toBe('topic-bakery');
    expect(picked.topics_searched).toEqual(['topic-bakery']);
    expect(picked.results[0]?.path).toBe('starter.md');

    const all = await searchReferences(root, { question: 'crust border', all: true, embedder });
    expect(all.topic).toBeNull();
    expect(all.topics_searched.sort()).toEqual(['topic-bakery', 'topic-widgetry']);
    expect(new Set(all.results.map((r) => r.topic_id))).toEqual(new Set(['topic-bakery', 'topic-widgetry']));
  });

  it('resolves a loose topic name and fails with TOPIC_NOT_FOUND for an unknown one', async () => {
    const res = await searchReferences(root, { question: 'grid', topic: 'widgetry', embedder: null });
    expect(res.topic?.topic_id).toBe('topic-widgetry');
    await expect(searchReferences(root, { question: 'grid', topic: 'topic-nope', embedder: null })).rejects.toMatchObject({
      code: 'TOPIC_NOT_FOUND',
    });
  });

  it('validates its inputs', async () => {
    await expect(searchReferences(root, { question: '  ', embedder: null })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(searchReferences(root, { question: 'x', limit: 0, embedder: null })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(searchReferences(root, { question: 'x', limit: 2.5, embedder: null })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('honours limit and maxChars', async () => {
    const res = await searchReferences(root, { question: 'widget terminal grid border', topic: 'topic-widgetry', limit: 2, maxChars: 60, embedder });
    expect(res.results).toHaveLength(2);
    for (const r of res.results) expect(r.snippet.length).toBeLessThanOrEqual(60);
  });

  it('never shows obsolete topics or files', async () => {
    await writeTopic(root, { ...BAKERY, status: 'obsolete' });
    const picked = await searchReferences(root, { question: 'sourdough starter flour', embedder });
    expect(picked.topic?.topic_id).not.toBe('topic-bakery');
    expect(picked.results.map((r) => r.topic_id)).not.toContain('topic-bakery');
    const all = await searchReferences(root, { question: 'starter flour crust', all: true, embedder });
    expect(all.topics_searched).toEqual(['topic-widgetry']);
    expect(all.results.map((r) => r.topic_id)).not.toContain('topic-bakery');
    // Asked for by id it is described, but its files are not searched.
    const direct = await searchReferences(root, { question: 'starter', topic: 'topic-bakery', embedder });
    expect(direct.topic).toMatchObject({ topic_id: 'topic-bakery', status: 'obsolete' });
    expect(direct.results).toEqual([]);

    writeTopicMd(root, { ...WIDGETRY, file_status: [{ path: 'src/lib.rs', status: 'obsolete', reason: 'old API', updated_at: '2025-07-01T00:00:00Z' }] });
    for (const e of [embedder, null]) {
      const res = await searchReferences(root, { question: 'resize grid cells', topic: 'topic-widgetry', embedder: e });
      expect(res.results.map((r) => r.path)).not.toContain('src/lib.rs');
    }
  });

  it('demotes and flags problematic files', async () => {
    const q = { question: 'resize grid cells truncate', topic: 'topic-widgetry', embedder, explain: true } as const;
    const before = await searchReferences(root, q);
    expect(before.results[0]!.path).toBe('src/lib.rs');
    writeTopicMd(root, {
      ...WIDGETRY,
      file_status: [{ path: 'src/lib.rs', status: 'problematic', reason: 'examples do not compile', updated_at: '2025-07-01T00:00:00Z' }],
    });
    const after = await searchReferences(root, q);
    const hit = after.results.find((r) => r.path === 'src/lib.rs')!;
    expect(hit).toBeDefined();
    expect(hit).toMatchObject({ file_status: 'problematic', file_status_reason: 'examples do not compile' });
    expect(hit.explain!.boosts.status).toBe(0.5);
    // Its relevance is unchanged; its score is halved (ordering below weaker active hits is a
    // fusion unit test).
    expect(hit.explain!.fused).toBeCloseTo(before.results[0]!.explain!.fused, 6);
    expect(hit.score).toBeCloseTo(before.results[0]!.score * 0.5, 6);
  });

  it('boosts docs over code before the final sort', async () => {
    // The code file matches better lexically (rank 1); the doc is a close second: the boost,
    // applied before sorting, puts the doc first.
    await writeTopic(root, {
      id: 'topic-tie',
      title: 'Tie',
      body: '# Tie\n\nA tie between docs and code.',
      files: {
        'a_code.py': '# frobnicator quux wheel\n# the frobnicator spins the quux wheel\nx = 1\n',
        'b_docs.md': '# Notes\n\nThe frobnicator spins the quux wheel.\n',
      },
    });
    const res = await searchReferences(root, { question: 'frobnicator quux wheel', topic: 'topic-tie', embedder: null, explain: true });
    expect(res.results.map((r) => r.path)).toEqual(['b_docs.md', 'a_code.py']);
    const [docs, code] = res.results;
    expect(docs!.explain!.boosts.role).toBeGreaterThan(1);
    expect(code!.explain!.boosts.role).toBe(1);
    // Without the boost the code file would have ranked first (higher BM25 rank).
    expect(code!.explain!.lexical!.rank).toBe(1);
  });

  it('reports stale topics on the topic and on every hit', async () => {
    await writeTopic(root, { ...WIDGETRY, fetched_at: '2020-01-01T00:00:00Z', max_age_days: 30 });
    const res = await searchReferences(root, { question: 'grid', topic: 'topic-widgetry', embedder: null });
    expect(res.topic).toMatchObject({ is_stale: true, stale_since: '2020-01-31T00:00:00.000Z' });
    expect(res.results.every((r) => r.is_stale)).toBe(true);
  });

  it('explains each score', async () => {
    const res = await searchReferences(root, { question: 'parseConfig', topic: 'topic-widgetry', embedder, explain: true });
    const e = res.results[0]!.explain!;
    expect(e.rrf).toBeGreaterThan(0);
    expect(e.lexical ?? e.vector).not.toBeNull();
    expect(e.boosted).toBeCloseTo(e.fused * e.boosts.role * e.boosts.trust * e.boosts.status, 12);
    expect(e.boosts.trust).toBeCloseTo(0.9 + 8 / 100);
  });
});

describe('searchTopics', () => {
  it('returns the seed fields, best first, obsolete only on request', async () => {
    const hits = await searchTopics(root, 'terminal widgets', { embedder });
    expect(hits[0]).toMatchObject({
      topic_id: 'topic-widgetry',
      title: WIDGETRY.title,
      status: 'active',
      is_stale: false,
      stale_since: null,
      tags: ['tui', 'terminal', 'widgets'],
    });
    expect(Object.keys(hits[0]!).sort()).toEqual(['fetched_at', 'is_stale', 'score', 'snippet', 'stale_since', 'status', 'tags', 'title', 'topic_id'].sort());
    expect(hits[0]!.snippet).toContain('toolkit for terminal');
    expect(hits[0]!.score).toBeGreaterThan(0);

    await writeTopic(root, { ...WIDGETRY, status: 'obsolete' });
    expect((await searchTopics(root, 'terminal widgets', { embedder })).map((h) => h.topic_id)).not.toContain('topic-widgetry');
    const withObsolete = await searchTopics(root, 'terminal widgets', { embedder, includeObsolete: true });
    expect(withObsolete[0]).toMatchObject({ topic_id: 'topic-widgetry', status: 'obsolete' });
  });

  it('finds nothing for an unrelated query and picks up edited notes', async () => {
    expect(await searchTopics(root, 'quantum chromodynamics', { embedder: null })).toEqual([]);
    writeTopicMd(root, { ...BAKERY, body: '# Sourdough\n\nAlso covers quantum chromodynamics of gluten.' });
    const hits = await searchTopics(root, 'quantum chromodynamics', { embedder: null });
    expect(hits.map((h) => h.topic_id)).toEqual(['topic-bakery']);
  });

  it('ignores a hand-broken topic.md without failing', async () => {
    await syncIndex(root, { embedder: null });
    writeFileSync(join(root, 'references', 'topic-bakery', 'topic.md'), '+++\nid = \n+++\n');
    const hits = await searchTopics(root, 'sourdough', { embedder: null });
    expect(hits).toEqual([]);
    const res = await searchReferences(root, { question: 'terminal grid', embedder: null });
    expect(res.topic?.topic_id).toBe('topic-widgetry');
  });
});
