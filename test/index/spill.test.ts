/**
 * A BM25 build that spills its postings to run files (bm25/spill.ts) must write the very bytes
 * the in-memory build encodes, for real chunks cut and counted by a real sync pipeline, whatever
 * the run size; and it must leave no run file behind, written or abandoned.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { chunkFile, roleForPath } from '../../src/lib/chunking/index.js';
import { startChunkPool } from '../../src/lib/chunking/pool.js';
import { type Bm25Doc, encodeSegment, searchSegments, SegmentBuilder } from '../../src/lib/index/bm25/index.js';
import { ChunkPipeline } from '../../src/lib/index/chunk-pipeline.js';
import { type FileEntry, FileTable } from '../../src/lib/index/file-table.js';
import { tempName } from '../../src/lib/index/layout.js';
import { forgetSegments, lexicalDocOf, loadSegment, segmentFile, SegmentWriter } from '../../src/lib/index/segments.js';
import { FIXTURES } from '../chunking/fixtures.js';
import { makeTmpRoot } from '../helpers/index-topics.js';

/** Code of every fixture language and prose whose words recur across files (terms in many runs). */
function corpus(): [path: string, text: string][] {
  const files: [string, string][] = [];
  for (const dir of ['pkg-a', 'pkg-b', 'pkg-c', 'pkg-d']) {
    for (const fx of FIXTURES) files.push([`${dir}/${fx.path}`, fx.code]);
    const section = (n: number): string => `## Usage ${n}\n\nCall \`parseConfig\` on ${dir}; Größe ${n}, naïve café, 東京 HTTP2 word${n % 7}.\n\n`;
    files.push([`${dir}/README.md`, `# ${dir}\n\n${Array.from({ length: 30 }, (_, n) => section(n)).join('')}`]);
  }
  return files.sort(([a], [b]) => (a < b ? -1 : 1));
}

const entryOf = (path: string): FileEntry => ({ size: 0, mtimeMs: 0, sha256: '', role: roleForPath(path), chunkCount: 0 });

describe('a BM25 build that spills its postings', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
    delete process.env.TKOMA_REF_CHUNK_THREADS;
  });

  it('writes the bytes of the in-memory build, for runs of any size', async () => {
    const { root, cleanup } = makeTmpRoot();
    cleanups.push(cleanup);
    const docs: Bm25Doc[] = [];
    for (const [path, text] of corpus()) (await chunkFile(path, text)).forEach((c, i) => docs.push(lexicalDocOf({ ...c, id: `${path}#${i}`, path }, c.text)));
    const whole = new SegmentBuilder();
    for (const d of docs) whole.add(d);
    const expected = Buffer.from(encodeSegment(whole.finish()));
    const postingCount = expected.readUInt32LE(20);
    expect(postingCount).toBeGreaterThan(3000);
    const dir = `${root}/.tkoma`;
    mkdirSync(dir);
    // 7: hundreds of runs; 97: runs that end inside docs' postings; past the total: no spill.
    for (const postings of [7, 97, 1000, 10_000_000]) {
      const prefix = `${dir}/b${postings}`;
      const spilled = new SegmentBuilder(undefined, { prefix, postings });
      for (const d of docs) spilled.add(d);
      expect(spilled.spilled).toBe(postings < postingCount);
      spilled.writeFile(`${prefix}.lex`);
      expect(readFileSync(`${prefix}.lex`).equals(expected)).toBe(true);
      expect(readdirSync(dir).filter((n) => n.includes('.run-'))).toEqual([]);
    }
  });

  it('through a sync pipeline on worker threads: same segment file, same answers, no run left', async () => {
    const { root, cleanup } = makeTmpRoot();
    cleanups.push(() => {
      forgetSegments(root);
      cleanup();
    });
    const files = corpus();
    const build = async (gen: number, spill?: { postings: number }): Promise<Buffer> => {
      process.env.TKOMA_REF_CHUNK_THREADS = '3';
      const pool = startChunkPool(files.map(([p]) => p));
      const writer = new SegmentWriter(root, 'topic-t', gen);
      const lexFile = segmentFile(root, 'topic-t', gen, 'lex');
      const pipeline = new ChunkPipeline(pool, gen, FileTable.empty(), (r) => writer.add(r), spill && { prefix: tempName(lexFile), postings: spill.postings });
      try {
        for (const [path, text] of files) await pipeline.add(path, entryOf(path), text);
        const built = await pipeline.finish();
        expect(built!.spilled).toBe(spill !== undefined);
        await writer.finish(built!);
      } finally {
        await pool.close();
      }
      return readFileSync(lexFile);
    };
    const inMemory = await build(1);
    const spilled = await build(2, { postings: 50 });
    expect(spilled.equals(inMemory)).toBe(true);
    expect(readdirSync(dirname(segmentFile(root, 'topic-t', 2, 'lex'))).filter((n) => n.includes('.tmp-'))).toEqual([]);
    // Opened from disk, both answer alike (the spilled one as the segment its writer returned).
    forgetSegments(root);
    const a = (await loadSegment(root, 'topic-t', 1))!.segment.lex;
    const b = (await loadSegment(root, 'topic-t', 2))!.segment.lex;
    for (const q of ['parseConfig usage', 'café größe', 'word3 HTTP2']) {
      const hits = searchSegments([{ segment: a }], q, 10);
      expect(hits.length).toBeGreaterThan(0);
      expect(searchSegments([{ segment: b }], q, 10)).toEqual(hits);
    }
  });

  it('removes its runs when the segment is abandoned', async () => {
    const { root, cleanup } = makeTmpRoot();
    cleanups.push(cleanup);
    const dir = `${root}/.tkoma`;
    mkdirSync(dir);
    const builder = new SegmentBuilder(undefined, { prefix: `${dir}/x`, postings: 10 });
    for (const [path, text] of corpus().slice(0, 6)) (await chunkFile(path, text)).forEach((c, i) => builder.add(lexicalDocOf({ ...c, id: `${path}#${i}`, path }, c.text)));
    expect(readdirSync(dir).filter((n) => n.includes('.run-')).length).toBeGreaterThan(1);
    expect(() => builder.finish()).toThrow(/spilled/);
    builder.discard();
    expect(readdirSync(dir).filter((n) => n.includes('.run-'))).toEqual([]);
    expect(existsSync(`${dir}/x.lex`)).toBe(false);
  });
});
