/**
 * Dumps the ranked lists bench/fusion-sweep.ts reads: for every query of SciFact and CoSQA, the
 * top lexical (chunk id, BM25) and vector (chunk id, cosine) lists from the quality benchmark's
 * use-lite knowledge roots, read-only (no sync). Run `npm run bench:quality -- --embedder use-lite`
 * first so the roots and their vectors exist.
 *
 *   npx tsx bench/fusion-lists.ts [--out DIR] [--depth N]     (default .bench-work/fusion, 300)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { createEmbedder } from '../src/lib/embedding/index.js';
import { loadHead, loadTopicIndex, searchLexical } from '../src/lib/index/service.js';
import { loadBeir } from './lib/beir.js';
import { WORK_DIR } from './lib/store.js';

const BENCH_DIR = process.env.TKOMA_BENCH_DIR ?? '/work/shared/bench';

const { values } = parseArgs({ options: { out: { type: 'string' }, depth: { type: 'string' } } });
const out = values.out ?? join(WORK_DIR, 'fusion');
const depth = Number(values.depth ?? 300);
mkdirSync(out, { recursive: true });
const embedder = (await createEmbedder({ provider: 'use-lite' }))!;
for (const set of ['scifact', 'cosqa'] as const) {
  const root = join(WORK_DIR, 'quality', set, 'kb-use-lite');
  const topic = `topic-${set}`;
  const head = await loadHead(root, topic);
  const loaded = head ? await loadTopicIndex(root, topic, head) : null;
  const ann = loaded?.index.ann;
  if (!loaded || !ann || ann.key !== embedder.key) {
    throw new Error(`${root}: no index with ${embedder.key} vectors; run npm run bench:quality -- --dataset ${set} --embedder use-lite`);
  }
  const data = loadBeir(join(BENCH_DIR, set));
  const lists: { q: string; lex: [string, number][]; vec: [string, number][] }[] = [];
  for (const q of data.queries) {
    const qv = await embedder.embedQuery(q.text);
    const lex = (await searchLexical(loaded.index, q.text, depth)).map((h) => [h.id, h.score] as [string, number]);
    const vec = ann.search(qv, depth).map((h) => [h.id, h.similarity] as [string, number]);
    lists.push({ q: q.id, lex, vec });
  }
  writeFileSync(join(out, `lists-${set}.json`), JSON.stringify(lists));
  process.stderr.write(`${set}: ${lists.length} queries → ${join(out, `lists-${set}.json`)}\n`);
}
