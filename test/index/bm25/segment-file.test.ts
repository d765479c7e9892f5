import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { TkomaError } from '../../../src/lib/errors.js';
import {
  buildSegment,
  decodeSegment,
  encodeSegment,
  isFileSegment,
  openSegmentFile,
  searchSegments,
  segmentIdParts,
  type Bm25Doc,
  type SegmentView,
} from '../../../src/lib/index/bm25/index.js';
import { digestIds } from '../../../src/lib/index/segment-records.js';
import { forgetTopicIndex, loadHead, syncIndex, topicIndexDir } from '../../../src/lib/index/service.js';
import { searchReferences } from '../../../src/lib/search/search.js';
import { makeTmpRoot, writeTopic } from '../../helpers/index-topics.js';

const doc = (id: string, text: string, path = ''): Bm25Doc => ({ id, fields: ['', '', path, text] });

function corpus(): Bm25Doc[] {
  const words = ['gauge', 'widget', 'sparkline', 'barometer', 'needle', 'dial', 'reading', 'scale', 'unit', 'alarm'];
  return Array.from({ length: 60 }, (_, i) =>
    doc(`docs/p${i}.md#${i % 3}`, Array.from({ length: 3 + (i % 7) }, (_, k) => words[(i * 7 + k * k) % words.length]).join(' '), `docs/p${i}.md`),
  );
}
const queries = ['gauge', 'widget dial', 'barometer reading alarm', 'needle scale unit', 'missing words', 'sparkline gauge widget'];

describe('a segment opened from its file', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tkoma-segfile-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, bytes: Uint8Array): string => {
    const f = join(dir, name);
    writeFileSync(f, bytes);
    return f;
  };

  it('answers every query exactly as the decoded segment, masks and several views included', () => {
    const docs = corpus();
    const a = encodeSegment(buildSegment(docs.slice(0, 40)));
    const b = encodeSegment(buildSegment(docs.slice(40)));
    const mask = Uint8Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? 0 : 1));
    const decoded: SegmentView[] = [{ segment: decodeSegment(a), live: mask }, { segment: decodeSegment(b) }];
    const opened: SegmentView[] = [{ segment: openSegmentFile(file('a.lex', a)), live: mask }, { segment: openSegmentFile(file('b.lex', b)) }];
    expect(isFileSegment(opened[0]!.segment)).toBe(true);
    expect(isFileSegment(decoded[0]!.segment)).toBe(false);
    for (const q of queries) {
      for (const limit of [1, 5, 100]) {
        // Twice: the second answer comes from the postings read by the first.
        expect(searchSegments(opened, q, limit)).toEqual(searchSegments(decoded, q, limit));
        expect(searchSegments(opened, q, limit)).toEqual(searchSegments(decoded, q, limit));
      }
    }
    expect(searchSegments(opened, 'gauge', 5).length).toBeGreaterThan(0);
  });

  it('keeps ASCII ids as bytes: the same ids and ids digest as the decoded segment, non-ASCII and damaged ids as before', () => {
    const ascii = corpus().slice(0, 20);
    const wide = [...ascii.slice(0, 5), doc('docs/ré😀sumé.md#0', 'gauge dial'), ...ascii.slice(5, 10)];
    for (const [name, docs, asBytes] of [['ascii.lex', ascii, true], ['wide.lex', wide, false]] as const) {
      const bytes = encodeSegment(buildSegment(docs));
      const opened = openSegmentFile(file(name, bytes));
      const decoded = decodeSegment(bytes);
      const parts = segmentIdParts(opened);
      expect(typeof parts.text !== 'string').toBe(asBytes);
      const want = segmentIdParts(decoded);
      expect(digestIds(parts.text, parts.offsets).equals(digestIds(want.text, want.offsets))).toBe(true);
      expect(opened.ids).toEqual(docs.map((d) => d.id));
      expect(encodeSegment(opened)).toEqual(bytes);
    }
    // An id byte that is not UTF-8 is refused when the file is opened, as the text decode refused it.
    const bytes = encodeSegment(buildSegment(ascii));
    const bad = Uint8Array.from(bytes);
    const idsAt = Buffer.from(bad).indexOf(Buffer.from(ascii[0]!.id));
    expect(idsAt).toBeGreaterThan(0);
    bad[idsAt + 2] = 0xff;
    expect(() => openSegmentFile(file('bad-id.lex', bad))).toThrow(TkomaError);
    // An id changed to another ASCII byte opens, and its digest no longer matches the records'.
    const other = Uint8Array.from(bytes);
    other[idsAt + 2] = 'X'.charCodeAt(0);
    const changed = segmentIdParts(openSegmentFile(file('other-id.lex', other)));
    const want = segmentIdParts(decodeSegment(bytes));
    expect(digestIds(changed.text, changed.offsets).equals(digestIds(want.text, want.offsets))).toBe(false);
  });

  it('encodes back to the bytes it was opened from', () => {
    const bytes = encodeSegment(buildSegment(corpus()));
    expect(Buffer.from(encodeSegment(openSegmentFile(file('round.lex', bytes))))).toEqual(Buffer.from(bytes));
  });

  it('refuses a truncated, padded or garbage file on opening', () => {
    const bytes = encodeSegment(buildSegment(corpus()));
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes);
    for (const bad of [bytes.subarray(0, 10), bytes.subarray(0, bytes.length - 1), padded, new Uint8Array(0), Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24)]) {
      let caught: unknown;
      try {
        openSegmentFile(file('bad.lex', bad));
      } catch (err) {
        caught = err;
      }
      expect((caught as TkomaError).code).toBe('DAMAGED_STATE');
    }
  });

  it('checks each posting list when a query reads it: damage is refused, never read out of range', () => {
    const bytes = encodeSegment(buildSegment(corpus()));
    let refusedByQuery = 0;
    for (let at = 64; at + 4 <= bytes.length; at += 4) {
      const copy = bytes.slice();
      new DataView(copy.buffer).setUint32(at, 0xffffffff, true);
      let wholeDamaged = false;
      try {
        decodeSegment(copy);
      } catch {
        wholeDamaged = true;
      }
      let seg;
      try {
        seg = openSegmentFile(file('word.lex', copy));
      } catch (err) {
        expect((err as TkomaError).code).toBe('DAMAGED_STATE');
        expect(wholeDamaged).toBe(true); // refused on opening only what decoding refuses too
        continue;
      }
      let queryDamaged = false;
      for (const q of [...queries, 'gauge widget sparkline barometer needle dial reading scale unit alarm docs']) {
        try {
          for (const h of searchSegments([{ segment: seg }], q, 10)) {
            expect(h.doc).toBeLessThan(seg.docCount);
            expect(Number.isFinite(h.score)).toBe(true);
          }
        } catch (err) {
          expect(err).toBeInstanceOf(TkomaError);
          expect((err as TkomaError).code).toBe('DAMAGED_STATE');
          queryDamaged = true;
        }
      }
      if (queryDamaged) refusedByQuery++;
      expect(queryDamaged && !wholeDamaged).toBe(false);
    }
    expect(refusedByQuery).toBeGreaterThan(0);
  });
});

describe('search over a segment whose postings are damaged in place', () => {
  it('answers as before: the damaged lexical part is rebuilt from its texts', async () => {
    const { root, cleanup } = makeTmpRoot();
    try {
      const files: Record<string, string> = {};
      for (let i = 0; i < 30; i++) files[`docs/page${i}.md`] = `# Page ${i}\n\nThe widget number ${i} renders a gauge${i % 3 === 0 ? ' and a sparkline' : ''}.\n`;
      await writeTopic(root, { id: 'topic-gauges', title: 'Gauges', body: '# Gauges\n\nWidgets.', files });
      await syncIndex(root, {});
      const search = async () =>
        (await searchReferences(root, { question: 'sparkline gauge', topic: 'topic-gauges', mode: 'lexical', limit: 5 })).results.map((r) => `${r.path}|${r.snippet}`);
      forgetTopicIndex(root);
      const expected = await search();
      expect(expected.length).toBeGreaterThan(0);

      // Every posting doc number set past the last doc, the file's size unchanged: opening
      // checks sizes, offsets and texts only, so the query's own read is what finds it.
      const head = (await loadHead(root, 'topic-gauges'))!;
      const lexFile = join(topicIndexDir(root, 'topic-gauges'), `seg-${head.segments[0]!.gen}.lex`);
      const bytes = readFileSync(lexFile);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const [docs, terms, postings, fields] = [1, 2, 3, 4].map((i) => view.getUint32(8 + 4 * i, true)) as [number, number, number, number];
      const align8 = (n: number): number => (n + 7) & ~7;
      const postDocs = align8(align8(align8(align8(align8(64 + 8 * fields) + 4 * docs) + 4 * (docs + 1)) + 4 * (terms + 1)) + 4 * (terms + 1));
      for (let p = 0; p < postings; p++) view.setUint32(postDocs + 4 * p, docs + 1, true);
      writeFileSync(lexFile, bytes);
      expect(() => decodeSegment(bytes)).toThrow(TkomaError);

      forgetTopicIndex(root); // a fresh process
      expect(await search()).toEqual(expected);
      expect(await search()).toEqual(expected); // the rebuilt part, from memory
      expect(readdirSync(topicIndexDir(root, 'topic-gauges')).filter((n) => n.endsWith('.lex'))).toHaveLength(1);
      // A verifying sync finds the same damage and writes the lexical part back.
      forgetTopicIndex(root);
      const report = await syncIndex(root, { verify: true });
      expect(report.topics['topic-gauges']!.repaired).toEqual(['lexical']);
      expect(() => decodeSegment(readFileSync(lexFile))).not.toThrow();
    } finally {
      forgetTopicIndex(root);
      cleanup();
    }
  });
});
