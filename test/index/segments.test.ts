import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { Embedder } from '../../src/lib/embedding/types.js';
import { FULL_MERGE_RATIO, MAX_SEGMENTS, planCompaction } from '../../src/lib/index/compact.js';
import { forgetTopicIndex, loadHead, loadTopicIndex, syncIndex, topicIndexDir } from '../../src/lib/index/service.js';
import { rebuildIndex } from '../../src/lib/vectors/rebuild.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { type EmbedServer, makeTmpRoot, startBowEmbedder, writeTopic } from '../helpers/index-topics.js';

describe('planCompaction', () => {
  const segs = (...docs: number[]) => docs.map((d, i) => ({ gen: i + 1, docs: d }));
  const live = (...pairs: [number, number][]) => new Map(pairs);

  it('leaves a single clean segment alone', () => {
    expect(planCompaction(segs(100), live([1, 100]))).toEqual([]);
    expect(planCompaction([], live())).toEqual([]);
  });

  it('keeps small deltas beside a large base', () => {
    expect(planCompaction(segs(1000, 3, 2), live([1, 995], [2, 3], [3, 2]))).toEqual([]);
  });

  it('merges everything when deltas and dead docs outweigh the live share', () => {
    const s = segs(100, 20, 20);
    // 140 docs, 30 of them dead in the base: 30 dead + 40 outside the base > 25% of 110 live.
    expect(planCompaction(s, live([1, 70], [2, 20], [3, 20]))).toEqual(s);
    // A lone segment that is mostly dead is rewritten too.
    expect(planCompaction(segs(100), live([1, 50]))).toEqual(segs(100));
    expect(FULL_MERGE_RATIO).toBeLessThan(1);
  });

  it('merges the small segments when there are too many', () => {
    const s = segs(10_000, ...Array.from({ length: MAX_SEGMENTS }, () => 1));
    const l = new Map(s.map((x) => [x.gen, x.docs] as [number, number]));
    expect(planCompaction(s, l)).toEqual(s.slice(1));
  });
});

describe('segmented sync', () => {
  let server: EmbedServer;
  let embedder: Embedder;
  let root: string;
  let cleanup: () => void;
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`docs/page${i}.md`] = `# Page ${i}\n\nThe widget number ${i} renders a gauge${i % 3 === 0 ? ' and a sparkline' : ''}${i === 7 ? ' and an anemometer' : ''}.\n`;

  beforeAll(async () => {
    ({ server, embedder } = await startBowEmbedder(32));
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    ({ root, cleanup } = makeTmpRoot());
    await writeTopic(root, { id: 'topic-gauges', title: 'Gauges', body: '# Gauges\n\nWidgets.', files });
  });
  afterEach(() => {
    forgetTopicIndex(root);
    cleanup();
  });

  const dir = () => topicIndexDir(root, 'topic-gauges');
  const segFiles = () => readdirSync(dir()).filter((n) => n.startsWith('seg-')).sort();
  const search = async (question: string) =>
    (await searchReferences(root, { question, topic: 'topic-gauges', embedder, limit: 5 })).results.map((r) => `${r.path}|${r.snippet}`);
  const edit = (i: number, text: string) => writeFileSync(join(root, 'references', 'topic-gauges', `docs/page${i}.md`), text);

  it('a one-file edit adds a small segment and leaves the base file untouched', async () => {
    await syncIndex(root, { embedder });
    const head0 = (await loadHead(root, 'topic-gauges'))!;
    expect(head0.segments).toHaveLength(1);
    const baseLex = join(dir(), `seg-${head0.segments[0]!.gen}.lex`);
    const before = statSync(baseLex);

    edit(7, '# Page 7\n\nNow it draws a thermometer.\n');
    const report = await syncIndex(root, { embedder });
    expect(report.topics['topic-gauges']).toMatchObject({ changed: 1, added: 0, removed: 0 });
    const head1 = (await loadHead(root, 'topic-gauges'))!;
    expect(head1.segments).toHaveLength(2);
    expect(head1.segments[1]!.docs).toBe(1);
    expect(head1.files.get('docs/page7.md')!.seg).toBe(head1.segments[1]!.gen);
    const after = statSync(baseLex);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    forgetTopicIndex(root); // a fresh process
    const hits = await search('thermometer');
    expect(hits[0]).toMatch(/^docs\/page7\.md\|.*thermometer/s);
    // The replaced text is dead in the base: its word no longer finds anything.
    const old = await searchReferences(root, { question: 'anemometer', topic: 'topic-gauges', embedder, mode: 'lexical' });
    expect(old.results).toEqual([]);
  });

  it('many edits compact, and the answers equal a rebuild from nothing', async () => {
    await syncIndex(root, { embedder });
    for (let round = 0; round < MAX_SEGMENTS + 4; round++) {
      edit(round, `# Page ${round}\n\nRound ${round}: the widget shows a barometer reading.\n`);
      // Distinct mtimes, so the cheap stat check sees every edit.
      await syncIndex(root, { embedder });
    }
    const head = (await loadHead(root, 'topic-gauges'))!;
    expect(head.segments.length).toBeLessThanOrEqual(MAX_SEGMENTS);
    // No file points at a segment the head does not list; no stray segment files remain.
    const gens = new Set(head.segments.map((s) => s.gen));
    for (const f of head.files.values()) if (f.chunkCount > 0) expect(gens.has(f.seg!)).toBe(true);
    expect(segFiles()).toEqual([...gens].flatMap((g) => [`seg-${g}.lex`, `seg-${g}.rec`, `seg-${g}.txt`]).sort());
    expect(head.vectors).toMatchObject({ complete: true, count: head.files.chunkTotal() });
    // Every file's run is in the table and every segment carries its ids digest: the searches
    // below find runs from the table (live-chunks.ts), through deltas and compactions.
    for (const f of head.files.values()) if (f.chunkCount > 0) expect(f.start, JSON.stringify(f)).toBeGreaterThanOrEqual(0);
    expect(head.segments.every((s) => typeof s.ids === 'string')).toBe(true);
    forgetTopicIndex(root);
    const stamped = (await loadTopicIndex(root, 'topic-gauges', head))!.index;
    forgetTopicIndex(root); // the next load may not reuse the one above
    const checked = (await loadTopicIndex(root, 'topic-gauges', { ...head, segments: head.segments.map(({ ids: _ids, ...s }) => s) }))!.index;
    expect([...stamped.chunks.keys()]).toEqual([...checked.chunks.keys()]);
    expect(stamped.segments.map((s) => [...s.live])).toEqual(checked.segments.map((s) => [...s.live]));

    forgetTopicIndex(root);
    const queries = ['barometer reading', 'sparkline gauge', 'widget number 33', 'round 5'];
    const incremental = [];
    for (const q of queries) incremental.push(await search(q));
    await rebuildIndex(root, { embedder });
    forgetTopicIndex(root);
    const fresh = [];
    for (const q of queries) fresh.push(await search(q));
    expect(incremental).toEqual(fresh);
    expect(incremental[0]!.length).toBeGreaterThan(0);
  });

  it('a damaged text file never serves its garbage as a snippet', async () => {
    await syncIndex(root, { embedder });
    const txt = segFiles().find((n) => n.endsWith('.txt'))!;
    const bytes = readFileSync(join(dir(), txt));
    writeFileSync(join(dir(), txt), Buffer.alloc(bytes.length, 0x41)); // same size, wrong bytes
    forgetTopicIndex(root);
    const hits = await search('sparkline');
    // The record's hash catches the swap: no snippet of 'AAAA…' garbage.
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h).not.toMatch(/AAAA/);
  });
});
