/**
 * Embedding throughput by provider and model shape, on real chunk texts:
 *
 *   npx tsx bench/embed-shapes.ts --root <knowledge root with an indexed topic> [--n 96]
 *
 * use-lite next to a random-weight ONNX of exactly bge-small-en-v1.5's architecture (fp32 and
 * int8, built by bench/lib/bert-onnx.ts) through the real transformers provider, at several batch
 * sizes, truncation lengths and onnxruntime thread counts. Prints one line per setting with the
 * 1-minute load (this machine is shared: note it next to every figure).
 */
import { mkdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { createEmbedder } from '../src/lib/embedding/index.js';
import { createTransformersEmbedder } from '../src/lib/embedding/transformers.js';
import type { Embedder } from '../src/lib/embedding/types.js';
import { listTopicIds } from '../src/lib/store/topic-files.js';
import { loadHead } from '../src/lib/index/topic-index.js';
import { readSegmentChunks } from '../src/lib/index/segments.js';
import { BGE_SMALL, writeBertShapedModel } from './lib/bert-onnx.js';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const root = arg('root', '');
const n = Number(arg('n', '96'));
const only = arg('only', '');

async function sampleTexts(): Promise<string[]> {
  const out: string[] = [];
  for (const id of await listTopicIds(root)) {
    const head = await loadHead(root, id);
    for (const s of head?.segments ?? []) out.push(...((await readSegmentChunks(root, id, s.gen)) ?? []).map((c) => c.text));
  }
  const step = Math.max(1, Math.floor(out.length / n));
  return out.filter((_, i) => i % step === 0).slice(0, n);
}

async function measure(label: string, e: Embedder, texts: string[]): Promise<void> {
  await e.embedDocuments(texts.slice(0, 4)); // warm-up
  const t = process.hrtime.bigint();
  await e.embedDocuments(texts);
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  const chars = texts.reduce((a, x) => a + x.length, 0) / texts.length;
  console.log(`| ${label} | ${texts.length} | ${Math.round(chars)} | ${s.toFixed(1)} | ${(texts.length / s).toFixed(1)} | ${loadavg()[0]!.toFixed(1)} |`);
}

const texts = await sampleTexts();
console.log(`| setting | chunks | mean chars | seconds | chunks/s | load_1m |\n|---|---|---|---|---|---|`);
const models = join(tmpdir(), 'tkoma-bench-models');
mkdirSync(models, { recursive: true });
const fp32 = join(models, 'bge-small-en-v1.5');
const int8 = join(models, 'int8', 'bge-small-en-v1.5');
writeBertShapedModel(fp32, BGE_SMALL);
writeBertShapedModel(int8, BGE_SMALL, { quantized: true });
const run = async (label: string, make: () => Promise<Embedder | null>): Promise<void> => {
  if (only && !label.includes(only)) return;
  const e = await make();
  if (!e) return;
  await measure(label, e, texts);
  await e.close();
};
await run('use-lite', () => createEmbedder({ provider: 'use-lite' }));
for (const [label, dir, dtype] of [['bge-small shape fp32', fp32, 'fp32'], ['bge-small shape int8', int8, 'q8']] as const) {
  for (const [batch, threads] of [[16, 2], [4, 2], [32, 2], [16, 1]] as const) {
    await run(`${label}, batch ${batch}, ${threads} threads, max 512`, () =>
      createTransformersEmbedder({ provider: 'transformers', modelDir: dir, model: 'bge-small-en-v1.5' }, { dtype, batchSize: batch, threads }),
    );
  }
  const short = `${dir}-256`;
  writeBertShapedModel(short, BGE_SMALL, { quantized: dtype === 'q8', maxLength: 256 });
  await run(`${label}, batch 16, 2 threads, max 256`, () =>
    createTransformersEmbedder({ provider: 'transformers', modelDir: short, model: 'bge-small-en-v1.5' }, { dtype, batchSize: 16, threads: 2 }),
  );
}
