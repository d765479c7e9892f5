import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { decodeSegment, encodeSegment } from '../../src/lib/index/bm25/index.js';
import { forgetSegments, readSegmentChunks, segmentFile, SegmentWriter, writeSegment, type ChunkRecord } from '../../src/lib/index/segments.js';
import { makeTmpRoot } from '../helpers/index-topics.js';

/** A chunk of `text` as the sync makes one. */
function chunk(path: string, text: string): ChunkRecord {
  return {
    id: `${path}#0`,
    path,
    startLine: 1,
    endLine: 1,
    role: 'docs',
    title: path,
    kind: 'section',
    language: 'markdown',
    text,
    hash: createHash('sha256').update(text).digest('hex'),
  };
}

describe('writeSegment writes its files in pieces', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('stores the texts back to back across piece boundaries, a text larger than a piece included', async () => {
    const { root, cleanup } = makeTmpRoot();
    cleanups.push(() => {
      forgetSegments(root);
      cleanup();
    });
    // Multi-byte text (UTF-8 longer than its UTF-16 length), many chunks past 1 MiB in all, and
    // one chunk of 1.5 MiB on its own.
    const texts = Array.from({ length: 300 }, (_, i) => `## Abschnitt ${i} – Größe µ ${'ΑΒΓ δ '.repeat(400 + i)}`);
    texts.splice(150, 0, 'x'.repeat(1.5 * 2 ** 20));
    const chunks = texts.map((t, i) => chunk(`docs/p${String(i).padStart(3, '0')}.md`, t));
    const seg = await writeSegment(root, 'topic-t', 7, chunks);

    const expected = Buffer.concat(texts.map((t) => Buffer.from(t, 'utf8')));
    expect(expected.length).toBeGreaterThan(3 * 2 ** 20);
    expect(readFileSync(segmentFile(root, 'topic-t', 7, 'txt')).equals(expected)).toBe(true);
    // The lexical file is what encodeSegment gives for the same segment, and decodes back.
    const lexBytes = readFileSync(segmentFile(root, 'topic-t', 7, 'lex'));
    expect(Buffer.from(encodeSegment(seg.lex)).equals(lexBytes)).toBe(true);
    expect(decodeSegment(lexBytes).docCount).toBe(texts.length);

    forgetSegments(root);
    const back = await readSegmentChunks(root, 'topic-t', 7);
    expect(back?.map((c) => c.text)).toEqual(texts);
  });

  it('a writer aborted mid-way leaves no file behind, its temporary text file included', async () => {
    const { root, cleanup } = makeTmpRoot();
    cleanups.push(cleanup);
    const out = new SegmentWriter(root, 'topic-t', 9);
    // Past one piece, so part of the text is already on disk under the temporary name.
    for (let i = 0; i < 40; i++) out.add(chunk(`p${i}.md`, 'y'.repeat(40_000)));
    const dir = dirname(segmentFile(root, 'topic-t', 9, 'txt'));
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toHaveLength(1);
    out.abort();
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(segmentFile(root, 'topic-t', 9, 'txt'))).toBe(false);
  });
});
