/**
 * The background vector builder as real processes: detached workers (node + tsx, as
 * spawnVectorWorker starts them) against an Ollama-protocol server on 127.0.0.1 that answers
 * slowly and counts how many requests are in flight at once.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { forgetEmbedders } from '../../src/lib/embedding/root-embedder.js';
import { forgetTopicIndex, loadHead, syncIndex } from '../../src/lib/index/service.js';
import { pidAlive } from '../../src/lib/process.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { spawnVectorWorker, vectorBuilder, workerCommand } from '../../src/lib/vectors/background.js';
import { setEmbedder } from '../../src/lib/vectors/choice.js';
import { vectorStatus } from '../../src/lib/vectors/status.js';
import { type EmbedServer, makeTmpRoot, startEmbedServer, writeTopic } from '../helpers/index-topics.js';

/** ~120 docs chunks and ~40 code chunks with distinct texts. */
function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    files[`docs/page-${i}.md`] = [0, 1, 2].map((s) => `## Section ${i}-${s}\n\nTopic ${i} part ${s}: widgets gears sprockets ${createHash('md5').update(`${i}-${s}`).digest('hex')} and more words to make a chunk.\n`).join('\n');
    files[`src/mod${i}.py`] = `def handler_${i}(x):\n    """Handle case ${i}."""\n    return x + ${i}\n`;
  }
  files['docs/special.md'] = '# Flux capacitor\n\nThe flux capacitor needs 1.21 gigawatts.\n';
  return files;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for `cond` while `worker` runs: a progress condition, not a clock (a busy machine only makes it slower). */
async function until(cond: () => boolean | Promise<boolean>, worker: ReturnType<typeof rawWorker>): Promise<void> {
  let exited = false;
  void worker.done.then(() => (exited = true));
  while (!(await cond())) {
    if (exited && !(await cond())) throw new Error(`the worker exited before the condition held: ${worker.output()}`);
    await sleep(50);
  }
}

/** A worker started exactly as spawnVectorWorker would, but without its "one runs already" check. */
function rawWorker(root: string): { pid: number; done: Promise<number | null>; output: () => string } {
  const { file, execArgv } = workerCommand();
  const env: NodeJS.ProcessEnv = { ...process.env, TKOMA_REF_ROOT: root };
  delete env.TKOMA_REF_VECTOR_WORKER;
  const child = spawn(process.execPath, [...execArgv, file, root], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return { pid: child.pid!, done: new Promise((r) => child.on('close', (code) => r(code))), output: () => out };
}

let server: EmbedServer;
let root: string;
let cleanup: () => void;
const KEY = 'ollama:bow-bg:32';
let chunkCount = 0;

beforeAll(async () => {
  server = await startEmbedServer(32, { delayMs: 250 });
});
afterAll(async () => {
  await server.close();
});

beforeEach(async () => {
  ({ root, cleanup } = makeTmpRoot());
  forgetEmbedders();
  server.texts.length = 0;
  server.maxInFlight = 0;
  server.delayMs = 250;
  await writeTopic(root, { id: 'topic-gears', title: 'Gears', body: '# Gears\n\nGears and sprockets.', files: manyFiles() });
  const report = await syncIndex(root, { embedder: null }); // what create/refresh leave: lexical only
  chunkCount = report.topics['topic-gears']!.chunks;
  const set = await setEmbedder(root, { provider: 'ollama', model: 'bow-bg', url: server.url, chunks: 'on' }, { startWorker: false });
  expect(set.recorded).toBe(KEY);
});
afterEach(async () => {
  // No worker outlives its test.
  const b = vectorBuilder(root);
  if (b && pidAlive(b.pid)) process.kill(b.pid, 'SIGKILL');
  forgetTopicIndex(root);
  cleanup();
});

describe('background vector worker (real processes)', () => {
  it('builds every vector, topic notes first then docs then code, and exits', async () => {
    server.delayMs = 0;
    const w = rawWorker(root);
    expect(await w.done).toBe(0);
    const head = (await loadHead(root, 'topic-gears'))!;
    expect(head.vectors).toMatchObject({ key: KEY, complete: true, count: chunkCount });
    expect(server.texts[0]).toContain('Gears'); // the topic note came first
    const firstCode = server.texts.findIndex((t) => t.startsWith('def handler_'));
    const lastDocs = server.texts.map((t) => t.includes('## Section') || t.includes('Flux')).lastIndexOf(true);
    expect(firstCode).toBeGreaterThan(lastDocs);
    const st = await vectorStatus(root);
    expect(st).toMatchObject({ target: KEY, chunk_vectors: true, pending: 0, builder: null });
    expect(st.notes).toMatchObject({ serving: KEY, with_vectors: 1 });
  });

  it('two workers never run at once: the second leaves at once', async () => {
    const a = rawWorker(root);
    await until(() => vectorBuilder(root) !== null, a);
    const b = rawWorker(root);
    expect(await b.done).toBe(0); // left while `a` works
    expect(vectorBuilder(root)?.pid).toBe(a.pid);
    server.delayMs = 0;
    expect(await a.done).toBe(0);
    expect(server.maxInFlight).toBe(1);
    expect(b.output()).toMatch(new RegExp(`another builder runs \\(pid ${a.pid}\\); leaving`));
    expect((await loadHead(root, 'topic-gears'))!.vectors).toMatchObject({ complete: true, count: chunkCount });
    // spawnVectorWorker, as create/refresh call it, starts none while one runs.
    const c = rawWorker(root);
    await until(() => vectorBuilder(root) !== null, c);
    expect(spawnVectorWorker(root)).toMatchObject({ started: false, pid: c.pid });
    await c.done;
  });

  it('a search during embedding answers lexically with coverage < 1, and a killed worker resumes from the cache', async () => {
    const w = rawWorker(root);
    await until(() => server.texts.length >= 40, w); // notes + a couple of batches, then...
    // ...a search answers at once, from BM25, and says how far vectors are.
    const res = await searchReferences(root, { question: 'flux capacitor gigawatts', topic: 'topic-gears' });
    expect(res.results[0]?.path).toBe('docs/special.md');
    expect(res.vector_search.coverage).toBeLessThan(1);
    expect(res.vector_search.pending).toBeGreaterThan(0);
    expect(res.vector_search.building).toBe(true);
    process.kill(w.pid, 'SIGKILL');
    await w.done;
    const embeddedBefore = server.texts.length;
    expect(embeddedBefore).toBeLessThan(chunkCount);
    // The cache kept every finished batch.
    const cacheDir = join(root, '.tkoma', 'cache', 'embeddings');
    expect(existsSync(cacheDir) && readdirSync(cacheDir).length).toBeTruthy();

    // A new worker breaks the dead one's lock and embeds only what is left.
    server.delayMs = 0;
    const again = rawWorker(root);
    expect(await again.done).toBe(0);
    const head = (await loadHead(root, 'topic-gears'))!;
    expect(head.vectors).toMatchObject({ key: KEY, complete: true, count: chunkCount });
    const distinct = new Set(server.texts).size;
    // Every text embedded about once: at most the batch in flight at the kill was lost.
    expect(server.texts.length).toBeLessThanOrEqual(distinct + 16);
    forgetTopicIndex(root);
    const after = await searchReferences(root, { question: 'flux capacitor gigawatts', topic: 'topic-gears' });
    expect(after.vector_search).toMatchObject({ available: true, embedder: KEY, coverage: 1, pending: 0 });
  });

  it('a warm server picks up the vectors a worker writes, without a restart', async () => {
    const { startServer } = await import('../../src/lib/serve/server.js');
    const { tryServer } = await import('../../src/lib/serve/client.js');
    const running = await startServer(root, { watch: false, preloadTopics: 1 });
    try {
      const ask = async () =>
        (await tryServer(root, 'search', { question: 'flux capacitor gigawatts', topic: 'topic-gears' }, { timeoutMs: 900_000 })) as {
          vector_search: { coverage: number; available: boolean };
          results: { path: string }[];
        };
      const before = await ask();
      expect(before.vector_search.coverage).toBe(0);
      expect(before.results[0]?.path).toBe('docs/special.md');
      server.delayMs = 0;
      const w = rawWorker(root);
      expect(await w.done).toBe(0);
      const after = await ask();
      expect(after.vector_search).toMatchObject({ available: true, coverage: 1 });
      expect(after.results[0]?.path).toBe('docs/special.md');
    } finally {
      await running.close();
    }
  });
});
