/**
 * BM25 terms counted on the chunk worker threads must build the very segment that tokenizing the
 * same chunks in the main thread builds: same bytes, whether every file, some or none came back
 * counted (a worker thread that dies leaves its files to the main thread).
 */
import { afterEach, describe, expect, it } from 'vitest';

import { chunkFile, roleForPath } from '../../src/lib/chunking/index.js';
import { type ChunkPool, startChunkPool } from '../../src/lib/chunking/pool.js';
import { DEFAULT_BUILD, encodeSegment, SegmentBuilder } from '../../src/lib/index/bm25/index.js';
import { ForeignTerms } from '../../src/lib/index/bm25/segment.js';
import { ChunkPipeline } from '../../src/lib/index/chunk-pipeline.js';
import { ChunkTermPacker, learnTerms } from '../../src/lib/index/chunk-terms.js';
import { type FileEntry, FileTable } from '../../src/lib/index/file-table.js';
import { lexicalDocOf } from '../../src/lib/index/segments.js';
import { FIXTURES } from '../chunking/fixtures.js';

/**
 * Code of every fixture language in a few folders, prose with headings that repeat (a chunk's
 * title field is then reused from the chunk before), non-ASCII words, and data files.
 */
function corpus(): [path: string, text: string][] {
  const files: [string, string][] = [];
  for (const dir of ['pkg-a', 'pkg-b', 'pkg-c']) {
    for (const fx of FIXTURES) files.push([`${dir}/${fx.path}`, fx.code]);
    const section = (n: number): string => `## Usage\n\nCall \`parseConfig\` on ${dir}; Größe ${n}, naïve café, 東京 HTTP2 sha256.\n\n`;
    files.push([`${dir}/README.md`, `# ${dir}\n\n${Array.from({ length: 40 }, (_, n) => section(n)).join('')}`]);
    files.push([`${dir}/data.json`, JSON.stringify({ name: dir, values: [1, 2, 3], nested: { snake_case_key: 'x' } }, null, 2)]);
  }
  return files.sort(([a], [b]) => (a < b ? -1 : 1));
}

const entryOf = (path: string): FileEntry => ({ size: 0, mtimeMs: 0, sha256: '', role: roleForPath(path), chunkCount: 0 });

/** The segment bytes and the records a sync's pipeline makes of `files` with `pool`. */
async function throughPipeline(pool: ChunkPool, files: [string, string][]): Promise<{ lex: Buffer; records: string }> {
  const entries = FileTable.empty();
  const pipeline = new ChunkPipeline(pool, 1, entries);
  try {
    for (const [path, text] of files) await pipeline.add(path, entryOf(path), text);
    const seg = await pipeline.finish();
    return { lex: Buffer.from(encodeSegment(seg!.finish())), records: JSON.stringify([pipeline.fresh, Object.fromEntries(entries.entries())]) };
  } finally {
    await pool.close();
  }
}

describe('terms counted by another TermCounter', () => {
  it('build the same segment bytes as tokenizing in the builder, batch after batch', async () => {
    const packer = new ChunkTermPacker();
    const table = new ForeignTerms(Float64Array.from(DEFAULT_BUILD.fieldWeights));
    const here = new SegmentBuilder();
    const there = new SegmentBuilder();
    const files = corpus();
    // Batches of three files: the numbering carries over from one batch to the next.
    for (let b = 0; b < files.length; b += 3) {
      const batch = await Promise.all(files.slice(b, b + 3).map(async ([path, text]) => ({ path, chunks: await chunkFile(path, text) })));
      for (const { path, chunks } of batch) {
        packer.addFile(path, chunks);
        chunks.forEach((c, i) => here.add(lexicalDocOf({ ...c, id: `${path}#${i}`, path }, c.text)));
      }
      const { packed } = packer.take();
      learnTerms(table, packed);
      let doc = 0;
      let post = 0;
      for (const { path, chunks } of batch) {
        chunks.forEach((_, i) => {
          const n = packed.docTerms[doc]!;
          there.addCounted(`${path}#${i}`, packed.docLen[doc]!, table, packed.terms, packed.tfs, post, post + n);
          doc++;
          post += n;
        });
      }
      expect(doc).toBe(packed.docLen.length);
      expect(post).toBe(packed.terms.length);
    }
    const expected = Buffer.from(encodeSegment(here.finish()));
    expect(expected.length).toBeGreaterThan(10_000);
    expect(Buffer.from(encodeSegment(there.finish()))).toEqual(expected);
  });

  it('are refused when counted with other field weights', () => {
    const table = new ForeignTerms(Float64Array.from([1, 1, 1, 1]));
    table.names.push('term');
    const builder = new SegmentBuilder();
    expect(() => builder.addCounted('a#0', 1, table, Uint32Array.of(0), Float32Array.of(1), 0, 1)).toThrow(/other BM25 field weights/);
  });
});

describe('a sync pipeline with chunk worker threads', () => {
  afterEach(() => {
    delete process.env.TKOMA_REF_CHUNK_THREADS;
  });

  it('writes the same segment and records from terms counted on the threads as from terms counted here', async () => {
    const files = corpus();
    process.env.TKOMA_REF_CHUNK_THREADS = '1';
    const inline = startChunkPool(files.map(([p]) => p));
    expect(inline.threads).toBe(0);
    const expected = await throughPipeline(inline, files);

    process.env.TKOMA_REF_CHUNK_THREADS = '3';
    const pool = startChunkPool(files.map(([p]) => p));
    expect(pool.threads).toBe(2);
    const threaded = await throughPipeline(pool, files);
    expect(pool.answered).toBe(files.length);
    expect(threaded.records).toEqual(expected.records);
    expect(threaded.lex.equals(expected.lex)).toBe(true);
  });

  it('indexes the files of a thread that dies mid-run in this thread, into the same bytes', async () => {
    // A data file whose chunks and terms outgrow a worker's heap: the thread it is sent to runs
    // out of memory, a real death, and its unanswered files come back to this thread. (Not one
    // string larger than the heap: V8 fails such an allocation for the whole process.)
    const files = corpus();
    const big = JSON.stringify(Array.from({ length: 150_000 }, (_, i) => ({ key: `value_${i % 97}`, n: i })), null, 1);
    files.splice(files.length >> 1, 0, ['pkg-b/big.json', big]);
    process.env.TKOMA_REF_CHUNK_THREADS = '1';
    const expected = await throughPipeline(startChunkPool(files.map(([p]) => p)), files);

    process.env.TKOMA_REF_CHUNK_THREADS = '3';
    const pool = startChunkPool(
      files.map(([p]) => p),
      { heapMb: 16 },
    );
    const threaded = await throughPipeline(pool, files);
    // Some files were counted on a thread, and some (the big one at least) here after a death.
    expect(pool.answered).toBeGreaterThan(0);
    expect(pool.answered).toBeLessThan(files.length);
    expect(threaded.records).toEqual(expected.records);
    expect(threaded.lex.equals(expected.lex)).toBe(true);
  });
});
