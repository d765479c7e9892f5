/**
 * Embedding throughput on this machine: `npx tsx bench/embed-throughput.ts [chunks=200]`.
 * Prints chunks/s for use-lite (real model), transformers (tiny random-weight model built here:
 * plumbing cost only), the Ollama/OpenAI clients against a local protocol server (client cost
 * only), and the embedding cache's write/load time at index scale.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createEmbedder } from '../src/lib/embedding/index.js';
import { EmbeddingCache } from '../src/lib/embedding/cache.js';
import type { Embedder } from '../src/lib/embedding/types.js';
import { USE_LITE_MAX_CHARS } from '../src/lib/embedding/use-lite.js';
import { startFakeServer } from '../test/helpers/fake-embed-servers.js';
import { tinyModelAt, tmpDir } from '../test/helpers/tmp.js';

const COUNT = Number(process.argv[2] ?? 200);

/** Real prose and code from installed packages, cut into chunks of about `size` characters. */
function corpus(size: number, count: number): string[] {
  const modules = join(dirname(dirname(fileURLToPath(import.meta.url))), 'node_modules');
  const roots = ['minisearch', 'chokidar', 'smol-toml', '@oclif/core'].map((p) => join(modules, p));
  let text = '';
  for (const root of roots) {
    for (const f of readdirSync(root)) if (/\.md$/i.test(f)) text += readFileSync(join(root, f), 'utf8') + '\n';
    const dist = join(root, 'dist');
    try {
      for (const f of readdirSync(dist, { recursive: true }) as string[]) {
        if (/\.(js|d\.ts)$/.test(f)) text += readFileSync(join(dist, f), 'utf8') + '\n';
        if (text.length > size * count * 2) break;
      }
    } catch {
      // package without dist/
    }
  }
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const start = (i * 7919) % Math.max(1, text.length - size);
    out.push(text.slice(start, start + size));
  }
  return out;
}

async function rate(e: Embedder, texts: string[]): Promise<string> {
  await e.embedDocuments(texts.slice(0, 2)); // warm-up
  const t = performance.now();
  await e.embedDocuments(texts);
  const seconds = (performance.now() - t) / 1000;
  return `${(texts.length / seconds).toFixed(1)} chunks/s (${texts.length} in ${seconds.toFixed(1)} s)`;
}

function line(label: string, value: string): void {
  console.log(`${label.padEnd(46)} ${value}`);
}

const tmp = tmpDir('tkoma-bench-');
try {
  const short = corpus(400, COUNT);
  const long = corpus(1500, COUNT);
  console.log(`# embedding throughput, ${COUNT} chunks each (node ${process.version})`);

  const useLite = (await createEmbedder({ provider: 'use-lite' }))!;
  line('use-lite, ~400 chars', await rate(useLite, short));
  line('use-lite, ~1,500 chars', await rate(useLite, long));
  line(`use-lite, ~4,000 chars (cut to ${USE_LITE_MAX_CHARS})`, await rate(useLite, corpus(4000, Math.min(COUNT, 50))));

  // 32-d: the plumbing (tokenizer, session, pooling); 384-d: plus one 384×384 projection per token.
  for (const hidden of [32, 384]) {
    const dir = tinyModelAt(tmp.dir, `tiny-${hidden}`, { hidden, maxLength: 512 });
    const tiny = (await createEmbedder({ provider: 'transformers', modelDir: dir }))!;
    line(`transformers tiny ${hidden}-d, ~400 chars`, await rate(tiny, short));
    line(`transformers tiny ${hidden}-d, ~1,500 chars`, await rate(tiny, long));
    await tiny.close();
  }

  const server = await startFakeServer(768);
  const ollama = (await createEmbedder({ provider: 'ollama', url: server.url }))!;
  line('ollama client vs local server, ~1,500', await rate(ollama, long));
  const openai = (await createEmbedder({ provider: 'openai', url: `${server.url}/v1`, model: 'm' }))!;
  line('openai client vs local server, ~1,500', await rate(openai, long));
  await server.close();

  // Cache at index scale: 20,000 vectors of 384 dimensions.
  const cacheDir = join(tmp.dir, 'cache');
  const key = 'bench:model:384';
  const writer = new EmbeddingCache(cacheDir);
  await writer.open(key, 384);
  const vec = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i));
  let t = performance.now();
  writer.putMany(key, Array.from({ length: 20_000 }, (_, i) => [i.toString(16).padStart(64, '0'), vec] as const));
  await writer.flush();
  line('cache: write 20,000 × 384', `${(performance.now() - t).toFixed(0)} ms`);
  t = performance.now();
  const reader = new EmbeddingCache(cacheDir);
  await reader.open(key, 384);
  line('cache: load 20,000 × 384', `${(performance.now() - t).toFixed(0)} ms (${reader.size(key)} vectors)`);
} finally {
  tmp.cleanup();
}
