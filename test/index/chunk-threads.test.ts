import { availableParallelism } from 'node:os';

import { afterEach, describe, expect, it } from 'vitest';

import { chunkFile, roleForPath } from '../../src/lib/chunking/index.js';
import { type ChunkedFile, pooledLanguages, startChunkPool, workerCount } from '../../src/lib/chunking/pool.js';
import { ChunkPipeline } from '../../src/lib/index/chunk-pipeline.js';
import { FileTable } from '../../src/lib/index/file-table.js';
import { forgetTopicIndex, syncIndex } from '../../src/lib/index/service.js';
import { FIXTURES } from '../chunking/fixtures.js';
import { indexBytes } from '../helpers/index-bytes.js';
import { makeTmpRoot, writeTopic } from '../helpers/index-topics.js';

describe('workerCount', () => {
  it('uses no worker for a few code files or on one core, else one per core besides this thread, up to four', () => {
    expect(workerCount(10, 8)).toBe(0);
    expect(workerCount(199, 8)).toBe(0);
    expect(workerCount(5000, 1)).toBe(0);
    expect(workerCount(5000, 2)).toBe(1);
    expect(workerCount(5000, 4)).toBe(3);
    expect(workerCount(5000, 16)).toBe(4);
  });

  it('follows TKOMA_REF_CHUNK_THREADS, which counts this thread too', () => {
    expect(workerCount(5000, 16, 1)).toBe(0);
    expect(workerCount(3, 1, 3)).toBe(2);
  });
});

describe('pooledLanguages', () => {
  it('sends the threads only languages with 200 files or more; with TKOMA_REF_CHUNK_THREADS set, every one', () => {
    const paths = [
      ...Array.from({ length: 200 }, (_, i) => `src/m${i}.rs`),
      ...Array.from({ length: 199 }, (_, i) => `web/w${i}.js`),
      'android/Main.kt',
      ...Array.from({ length: 300 }, (_, i) => `docs/d${i}.md`),
    ];
    expect([...pooledLanguages(paths)]).toEqual(['rust']);
    expect([...pooledLanguages(paths.slice(1))]).toEqual([]);
    expect([...pooledLanguages(paths, true)].sort()).toEqual(['javascript', 'kotlin', 'rust']);
  });

  it('starts no thread when no language has enough files, however many there are in all', () => {
    const paths = [...Array.from({ length: 150 }, (_, i) => `src/m${i}.rs`), ...Array.from({ length: 150 }, (_, i) => `web/w${i}.ts`)];
    expect(startChunkPool(paths).threads).toBe(0);
  });
});

/** Every code fixture under a few folders, plus prose and data files: enough to interleave. */
function corpus(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const dir of ['a', 'b', 'c']) {
    for (const fx of FIXTURES) files[`${dir}/${fx.path}`] = fx.code;
    files[`${dir}/README.md`] = `# ${dir}\n\nSome prose about the ${dir} package.\n\n## Usage\n\nCall it.`;
    files[`${dir}/data.json`] = JSON.stringify({ name: dir, values: [1, 2, 3] }, null, 2);
  }
  return files;
}

describe('chunking on worker threads', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    delete process.env.TKOMA_REF_CHUNK_THREADS;
    for (const c of cleanups.splice(0)) c();
  });

  async function indexWith(threads: string): Promise<Record<string, string>> {
    const { root, cleanup } = makeTmpRoot();
    cleanups.push(() => {
      forgetTopicIndex(root);
      cleanup();
    });
    await writeTopic(root, { id: 'topic-corpus', title: 'Corpus', body: '# Corpus', files: corpus() });
    process.env.TKOMA_REF_CHUNK_THREADS = threads;
    const report = await syncIndex(root, { topicIds: ['topic-corpus'] });
    expect(report.topics['topic-corpus']!.chunks).toBeGreaterThan(FIXTURES.length * 3);
    return indexBytes(root, 'topic-corpus');
  }

  /** Every fixture cut on a pool of `threads` (TKOMA_REF_CHUNK_THREADS), checked against this thread's chunks. */
  async function cutOnPool(threads: string, workers: number): Promise<ChunkedFile[]> {
    process.env.TKOMA_REF_CHUNK_THREADS = threads;
    const pool = startChunkPool(FIXTURES.map((f) => f.path));
    try {
      expect(pool.threads).toBe(workers);
      const pending = FIXTURES.map((fx) => pool.chunk(fx.path, fx.code));
      pool.flush();
      const threaded = await Promise.all(pending);
      expect(pool.answered).toBe(FIXTURES.length);
      for (const [i, fx] of FIXTURES.entries()) expect(threaded[i]!.chunks).toEqual(await chunkFile(fx.path, fx.code));
      return threaded;
    } finally {
      await pool.close();
    }
  }

  it('cuts files on the threads it starts, into the chunks this thread would cut', async () => {
    // Their BM25 terms were counted on the threads too (chunk-terms.test.ts checks them).
    for (const file of await cutOnPool('3', 2)) expect(file.counted).toBeDefined();
  });

  it('leaves the terms to this thread when it starts one thread only', async () => {
    for (const file of await cutOnPool('2', 1)) expect(file.counted).toBeUndefined();
  });

  it('writes the same index, byte for byte, as chunking every file in this thread', async () => {
    const inline = await indexWith('1');
    const counting = await indexWith('3'); // two threads: they count the terms
    const parsing = await indexWith('2'); // one thread: this one counts them
    expect(Object.keys(counting).sort()).toEqual(['files', 'lex', 'rec', 'txt']);
    expect(counting).toEqual(inline);
    expect(parsing).toEqual(inline);
  });

  it('sends a part-filled batch that files cut in this thread have left behind, when its file is awaited', async () => {
    // One Rust file (to the thread, its batch not full), then 200 JavaScript and TypeScript files
    // (too few of each for the thread: cut here), more than the pipeline keeps in flight: it then
    // waits on the Rust file, which only goes if its batch is sent. Before the fix: no end.
    const files: [string, string][] = [
      ['a/first.rs', 'pub fn first() -> u32 {\n    1\n}\n'],
      ...Array.from({ length: 150 }, (_, i): [string, string] => [`b/w${i}.js`, `export function w${i}() {\n  return ${i};\n}\n`]),
      ...Array.from({ length: 50 }, (_, i): [string, string] => [`b/x${i}.ts`, `export const x${i}: number = ${i};\n`]),
      ...Array.from({ length: 200 }, (_, i): [string, string] => [`c/m${i}.rs`, `pub fn m${i}() -> u32 {\n    ${i}\n}\n`]),
    ];
    const pool = startChunkPool(files.map(([p]) => p));
    expect(pool.threads).toBe(availableParallelism() >= 2 ? 1 : 0);
    const pipeline = new ChunkPipeline(pool, 1, FileTable.empty());
    try {
      for (const [path, text] of files) await pipeline.add(path, { size: 0, mtimeMs: 0, sha256: '', role: roleForPath(path), chunkCount: 0 }, text);
      expect(await pipeline.finish()).not.toBeNull();
    } finally {
      await pool.close();
    }
    expect(pipeline.fresh.map((r) => r.path)).toEqual(files.map(([p]) => p));
  });
});
