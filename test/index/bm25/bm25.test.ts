import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TkomaError } from '../../../src/lib/errors.js';
import {
  buildSegment,
  BM25_FORMAT_VERSION,
  decodeSegment,
  DEFAULT_BUILD,
  DEFAULT_QUERY,
  encodeSegment,
  searchSegments,
  segmentFieldWeights,
  type Bm25Doc,
  type Bm25Hit,
  type SegmentView,
} from '../../../src/lib/index/bm25/index.js';
import { queryTermWeights, searchSegmentsWithStats } from '../../../src/lib/index/bm25/query.js';
import { tokenize } from '../../../src/lib/index/bm25/tokenize.js';

/** A text-only doc under the default four-field layout [title, symbol, path, text]. */
const doc = (id: string, text: string, title = '', symbol = '', path = ''): Bm25Doc => ({
  id,
  fields: [title, symbol, path, text],
});
const textOnly = { fieldWeights: [0, 0, 0, 1] };
const ids = (hits: Bm25Hit[]): string[] => hits.map((h) => h.id);
const one = (docs: Bm25Doc[], params = DEFAULT_BUILD): SegmentView[] => [{ segment: buildSegment(docs, params) }];

function expectDamaged(bytes: Uint8Array): void {
  let caught: unknown;
  try {
    decodeSegment(bytes);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(TkomaError);
  expect((caught as TkomaError).code).toBe('DAMAGED_STATE');
}

function corpus(): Bm25Doc[] {
  return [
    doc('src/config.py#0', 'def parse_config(path):\n    return load(path)', 'function parse_config', 'parse_config', 'src/config.py'),
    doc('src/Config.cs#0', 'public class ParseConfig { }', 'class ParseConfig', 'ParseConfig', 'src/Config.cs'),
    doc('docs/render.md#0', 'The renderer draws widgets on the screen. Widgets are cheap.', 'Rendering', '', 'docs/render.md'),
    doc('docs/install.md#0', 'Install with npm and run the setup script.', 'Guide > Install', '', 'docs/install.md'),
    doc('src/http.ts#0', 'export function parseHTTPResponse(raw: string) { return raw }', 'function parseHTTPResponse', 'parseHTTPResponse', 'src/http.ts'),
    doc('docs/ünïcode.md#0', 'Ünïcode wörter und 東京 text', 'Ünïcode', '', 'docs/ünïcode.md'),
  ];
}

describe('BM25 scoring', () => {
  it('matches the BM25F formula on a hand-computed example', () => {
    // Weights title 2, text 1: tf(apple) = 2*1 + 1*2 = 4; length = 2*1 + 1*3 = 5.
    const seg = buildSegment([{ id: 'x', fields: ['apple', 'apple apple pear'] }, { id: 'y', fields: ['', 'pear plum'] }], {
      fieldWeights: [2, 1],
    });
    const [hit] = searchSegments([{ segment: seg }], 'apple', 10, { params: { k1: 1.2, b: 0.75 } });
    const avgdl = (5 + 2) / 2;
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const expected = (idf * 4 * 2.2) / (4 + 1.2 * (1 - 0.75 + (0.75 * 5) / avgdl));
    expect(hit!.id).toBe('x');
    expect(hit!.score).toBeCloseTo(expected, 5);
  });

  it('ranks a rare term above a common one', () => {
    const docs = [
      doc('common1', 'widget alpha'),
      doc('common2', 'widget beta'),
      doc('common3', 'widget gamma'),
      doc('rare', 'zebra delta'),
    ];
    const hits = searchSegments(one(docs, textOnly), 'widget zebra', 10);
    expect(hits[0]!.id).toBe('rare');
    expect(hits).toHaveLength(4);
  });

  it('prefers the shorter of two docs with the same term frequency', () => {
    const docs = [doc('long', `kafka ${'filler words here '.repeat(20)}`), doc('short', 'kafka client')];
    expect(ids(searchSegments(one(docs, textOnly), 'kafka', 10))).toEqual(['short', 'long']);
    // With b = 0 length does not matter: equal scores, ties ordered by id.
    const flat = searchSegments(one(docs, textOnly), 'kafka', 10, { params: { k1: 1.2, b: 0 } });
    expect(flat[0]!.score).toBeCloseTo(flat[1]!.score, 12);
    expect(ids(flat)).toEqual(['long', 'short']);
  });

  it('weights fields as the build params say', () => {
    const docs = [doc('in-title', 'some body text', 'tokio runtime'), doc('in-text', 'uses the tokio runtime', 'Other')];
    const titleHeavy = searchSegments(one(docs, { fieldWeights: [3, 0, 0, 1] }), 'tokio', 10);
    const titleLight = searchSegments(one(docs, { fieldWeights: [0.1, 0, 0, 1] }), 'tokio', 10);
    expect(titleHeavy[0]!.id).toBe('in-title');
    expect(titleLight[0]!.id).toBe('in-text');
    // Weight 0 ignores the field entirely.
    expect(ids(searchSegments(one(docs, textOnly), 'tokio', 10))).toEqual(['in-text']);
  });

  it('matches code identifiers across naming styles', () => {
    const hits = ids(searchSegments(one(corpus()), 'parseConfig', 10));
    expect(hits.slice(0, 2).sort()).toEqual(['src/Config.cs#0', 'src/config.py#0']);
  });

  it('counts a repeated query term once', () => {
    const views = one(corpus());
    expect(searchSegments(views, 'widgets widgets widgets', 10)).toEqual(searchSegments(views, 'widgets', 10));
  });

  it('returns nothing for empty queries, stop words only, limit <= 0 or no views', () => {
    const views = one(corpus());
    expect(searchSegments(views, '', 10)).toEqual([]);
    expect(searchSegments(views, '  \n ', 10)).toEqual([]);
    expect(searchSegments(views, 'the of and', 10)).toEqual([]);
    expect(searchSegments(views, 'widgets', 0)).toEqual([]);
    expect(searchSegments(views, 'widgets', -3)).toEqual([]);
    expect(searchSegments([], 'widgets', 10)).toEqual([]);
    expect(searchSegments(views, 'nosuchterm', 10)).toEqual([]);
    expect(searchSegments([{ segment: buildSegment([]) }], 'widgets', 10)).toEqual([]);
  });

  it('honours the limit and orders best first', () => {
    const docs = Array.from({ length: 30 }, (_, i) => doc(`d${i}`, `needle ${'hay '.repeat(i)}`));
    const hits = searchSegments(one(docs, textOnly), 'needle', 5);
    expect(ids(hits)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThan(hits[i]!.score);
  });

  it('breaks ties by id, then view, also at the limit boundary', () => {
    const names = ['m', 'c', 'x', 'a', 'q', 'b', 'z', 'k'];
    const a = buildSegment(names.slice(0, 4).map((id) => doc(id, 'same words here')), textOnly);
    const b = buildSegment(names.slice(4).map((id) => doc(id, 'same words here')), textOnly);
    const twin = buildSegment([doc('a', 'same words here')], textOnly);
    expect(ids(searchSegments([{ segment: a }, { segment: b }], 'words', 3))).toEqual(['a', 'b', 'c']);
    const hits = searchSegments([{ segment: twin }, { segment: a }], 'words', 2);
    expect(hits.map((h) => [h.id, h.view])).toEqual([
      ['a', 0],
      ['a', 1],
    ]);
  });

  it('rejects duplicate ids and more fields than weights', () => {
    expect(() => buildSegment([doc('a', 'x'), doc('a', 'y')])).toThrow(TkomaError);
    expect(() => buildSegment([{ id: 'a', fields: ['1', '2', '3'] }], { fieldWeights: [1, 1] })).toThrow(TkomaError);
    expect(() => buildSegment([doc('a', 'x')], { fieldWeights: [1, -1] })).toThrow(TkomaError);
  });
});

describe('views, liveness and accept', () => {
  it('merges hits from several views with view and doc numbers', () => {
    const a = buildSegment([doc('a0', 'kafka broker'), doc('a1', 'nothing here')], textOnly);
    const b = buildSegment([doc('b0', 'kafka'), doc('b1', 'kafka kafka broker')], textOnly);
    const hits = searchSegments([{ segment: a }, { segment: b }], 'kafka broker', 10);
    expect(hits.map((h) => [h.id, h.view, h.doc])).toEqual(
      expect.arrayContaining([
        ['a0', 0, 0],
        ['b0', 1, 0],
        ['b1', 1, 1],
      ]),
    );
    expect(hits).toHaveLength(3);
    // Same ranking and scores as one segment holding all four docs.
    const all = [doc('a0', 'kafka broker'), doc('a1', 'nothing here'), doc('b0', 'kafka'), doc('b1', 'kafka kafka broker')];
    const whole = searchSegments(one(all, textOnly), 'kafka broker', 10);
    expect(ids(hits)).toEqual(ids(whole));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(whole[i]!.score, 9));
  });

  it('excludes dead docs and scores like a rebuild of the live docs', () => {
    const docs = corpus();
    const live = new Uint8Array(docs.length).fill(1);
    live[1] = 0; // the ParseConfig class
    const masked = searchSegments([{ segment: buildSegment(docs), live }], 'parse config class', 10);
    const rebuilt = searchSegments(one(docs.filter((_, i) => i !== 1)), 'parse config class', 10);
    expect(ids(masked)).not.toContain('src/Config.cs#0');
    expect(ids(masked)).toEqual(ids(rebuilt));
    masked.forEach((h, i) => expect(h.score).toBeCloseTo(rebuilt[i]!.score, 9));
  });

  it('reports each view\'s live docs and live df per query term beside the same hits', () => {
    const a = buildSegment([doc('a0', 'kafka broker'), doc('a1', 'nothing here'), doc('a2', 'kafka again')], textOnly);
    const b = buildSegment([doc('b0', 'kafka'), doc('b1', 'broker broker')], textOnly);
    const live = new Uint8Array([1, 1, 0]); // a2 is dead: neither counted nor found
    const views: SegmentView[] = [{ segment: a, live }, { segment: b }];
    const { hits, stats } = searchSegmentsWithStats(views, 'kafka broker zebra', 10);
    expect(hits).toEqual(searchSegments(views, 'kafka broker zebra', 10));
    expect(stats!.terms).toEqual(['kafka', 'broker', 'zebra']);
    expect(stats!.docs).toEqual([2, 2]);
    expect(stats!.df).toEqual([
      [1, 1],
      [1, 1],
      [0, 0],
    ]);
    expect(stats!.idf[0]).toBeGreaterThan(0);
    expect(stats!.idf[2]).toBe(0);
    expect(searchSegmentsWithStats(views, 'the of', 10).stats).toBeNull();
  });

  it('treats an all-dead corpus as empty', () => {
    const docs = corpus();
    expect(searchSegments([{ segment: buildSegment(docs), live: new Uint8Array(docs.length) }], 'widgets', 10)).toEqual([]);
  });

  it('applies accept before the limit', () => {
    const docs = Array.from({ length: 10 }, (_, i) => doc(`d${i}`, `needle ${'hay '.repeat(i)}`));
    const seen: string[] = [];
    const hits = searchSegments(one(docs, textOnly), 'needle', 3, {
      accept: (id) => {
        seen.push(id);
        return id !== 'd0' && id !== 'd2';
      },
    });
    expect(ids(hits)).toEqual(['d1', 'd3', 'd4']);
    expect(seen).toContain('d0');
  });

  it('a split with dead docs ranks exactly like one fresh build of the live docs (property)', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'parse_config', 'HTTPServer', 'render', 'widget', 'x1', 'ünï'];
    const text = fc.array(fc.constantFrom(...words), { minLength: 0, maxLength: 12 }).map((w) => w.join(' '));
    const docArb = fc.tuple(text, text, text, text);
    const params = fc.record({
      k1: fc.constantFrom(0.5, 1.2, 2),
      b: fc.constantFrom(0, 0.75, 1),
    });
    fc.assert(
      fc.property(
        fc.array(fc.record({ fields: docArb, segment: fc.nat(3), live: fc.boolean() }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        params,
        fc.boolean(),
        (rows, q, p, roundTrip) => {
          const query = q.join(' ');
          const all = rows.map((r, i) => ({ id: `doc${i}`, fields: r.fields, segment: r.segment, live: r.live }));
          const views: SegmentView[] = [];
          for (let s = 0; s <= 3; s++) {
            const part = all.filter((d) => d.segment === s);
            if (part.length === 0) continue;
            // Segment 0 has no mask (absent = all live): its dead docs are left out of the build.
            const members = s === 0 ? part.filter((d) => d.live) : part;
            let segment = buildSegment(members);
            if (roundTrip) segment = decodeSegment(encodeSegment(segment));
            const live = s === 0 ? undefined : Uint8Array.from(part, (d) => (d.live ? 1 : 0));
            views.push({ segment, live });
          }
          const fresh = buildSegment(all.filter((d) => d.live));
          const got = searchSegments(views, query, 100, { params: p });
          const want = searchSegments([{ segment: fresh }], query, 100, { params: p });
          expect(got.map((h) => h.id).sort()).toEqual(want.map((h) => h.id).sort());
          const wantScore = new Map(want.map((h) => [h.id, h.score]));
          for (const h of got) expect(Math.abs(h.score - wantScore.get(h.id)!)).toBeLessThan(1e-6);
          for (let i = 1; i < got.length; i++) expect(got[i - 1]!.score).toBeGreaterThanOrEqual(got[i]!.score - 1e-9);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('encode / decode', () => {
  const queries = ['parseConfig', 'widgets screen', 'install npm', 'HTTP response', 'ünïcode 東京', 'nothing'];

  it('round-trips to identical search results and ids', () => {
    const seg = buildSegment(corpus());
    const bytes = encodeSegment(seg);
    const back = decodeSegment(bytes);
    expect(back.docCount).toBe(seg.docCount);
    expect(back.ids).toEqual(seg.ids);
    expect(segmentFieldWeights(back)).toEqual([...DEFAULT_BUILD.fieldWeights]);
    const custom = buildSegment([{ id: 'a', fields: ['x', 'y'] }], { fieldWeights: [0.25, 3] });
    expect(segmentFieldWeights(decodeSegment(encodeSegment(custom)))).toEqual([0.25, 3]);
    for (const q of queries) expect(searchSegments([{ segment: back }], q, 10)).toEqual(searchSegments([{ segment: seg }], q, 10));
    expect(encodeSegment(back)).toEqual(bytes);
  });

  it('decodes from an unaligned view of a larger buffer', () => {
    const bytes = encodeSegment(buildSegment(corpus()));
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes, 3);
    const back = decodeSegment(padded.subarray(3));
    for (const q of queries) {
      expect(searchSegments([{ segment: back }], q, 10)).toEqual(searchSegments(one(corpus()), q, 10));
    }
  });

  it('round-trips an empty segment', () => {
    const back = decodeSegment(encodeSegment(buildSegment([])));
    expect(back.docCount).toBe(0);
    expect(searchSegments([{ segment: back }], 'anything', 10)).toEqual([]);
  });

  it('throws DAMAGED_STATE for every truncation', () => {
    const bytes = encodeSegment(buildSegment(corpus()));
    for (let len = 0; len < bytes.length; len += 7) expectDamaged(bytes.subarray(0, len));
    expectDamaged(bytes.subarray(0, bytes.length - 1));
  });

  it('throws DAMAGED_STATE for trailing bytes, garbage, bad magic and another version', () => {
    const bytes = encodeSegment(buildSegment(corpus()));
    const longer = new Uint8Array(bytes.length + 8);
    longer.set(bytes);
    expectDamaged(longer);
    expectDamaged(new Uint8Array(0));
    const garbage = Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24);
    expectDamaged(garbage);
    const magic = bytes.slice();
    magic[0] = 0x58;
    expectDamaged(magic);
    const version = bytes.slice();
    new DataView(version.buffer).setUint32(8, BM25_FORMAT_VERSION + 1, true);
    expectDamaged(version);
  });

  it('throws DAMAGED_STATE when a count or a posting is corrupted', () => {
    const bytes = encodeSegment(buildSegment(corpus()));
    // Every header count field (docCount .. totalBytes) bumped by one.
    for (let field = 1; field <= 9; field++) {
      const copy = bytes.slice();
      const view = new DataView(copy.buffer);
      view.setUint32(8 + 4 * field, view.getUint32(8 + 4 * field, true) + 1, true);
      expectDamaged(copy);
    }
    // Every body word set to 0xFFFFFFFF: detected, or still safe to search.
    for (let at = 64; at + 4 <= bytes.length; at += 4) {
      const copy = bytes.slice();
      new DataView(copy.buffer).setUint32(at, 0xffffffff, true);
      try {
        const seg = decodeSegment(copy);
        for (const q of queries) {
          for (const h of searchSegments([{ segment: seg }], q, 10)) {
            expect(h.doc).toBeLessThan(seg.docCount);
            expect(typeof h.id).toBe('string');
            expect(Number.isFinite(h.score)).toBe(true);
          }
        }
      } catch (err) {
        expect((err as TkomaError).code).toBe('DAMAGED_STATE');
      }
    }
    // Random garbage written over the body after a valid header (fixed seeds, reproducible).
    fc.assert(
      fc.property(fc.nat(bytes.length - 65), fc.uint8Array({ minLength: 4, maxLength: 64 }), (at, junk) => {
        const copy = bytes.slice();
        copy.set(junk.subarray(0, copy.length - 64 - at), 64 + at);
        try {
          const seg = decodeSegment(copy);
          // Whatever decodes must be safe to search.
          for (const q of queries) for (const h of searchSegments([{ segment: seg }], q, 10)) expect(h.doc).toBeLessThan(seg.docCount);
        } catch (err) {
          expect((err as TkomaError).code).toBe('DAMAGED_STATE');
        }
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});

describe('defaults', () => {
  it('have one weight per field of [title, symbol, path, text] and sane BM25 parameters', () => {
    expect(DEFAULT_BUILD.fieldWeights).toHaveLength(4);
    expect(DEFAULT_QUERY.k1).toBeGreaterThan(0);
    expect(DEFAULT_QUERY.b).toBeGreaterThan(0);
    expect(DEFAULT_QUERY.b).toBeLessThanOrEqual(1);
  });
});

describe('split-word parts at a weight (searches across topics)', () => {
  it('weighs the parts of a split word, not the joined word or a plain word', () => {
    // The tokenizer moves the shared WORD regex's lastIndex: the weights must not depend on it.
    tokenize('a long sentence first, so that the shared regex has moved on: ünïcode wörter');
    expect(queryTermWeights('TypeScript type of the options', 0.5)).toEqual({
      terms: ['type', 'script', 'typescript', 'option'],
      weights: [1, 0.5, 1, 1],
    });
    expect(queryTermWeights('parse_config sha256', 0.25)).toEqual({
      terms: ['pars', 'config', 'parseconfig', 'sha', '256', 'sha256'],
      weights: [0.25, 0.25, 1, 0.25, 0.25, 1],
    });
  });

  it('a page naming the split word loses to one holding the plain word and the rest', () => {
    const docs = [
      doc('names-it', 'Written in TypeScript with TypeScript scripts and options'),
      doc('answers', 'the type of the cmp option'),
      doc('other', 'unrelated words about widgets'),
    ];
    const q = 'TypeScript type of the cmp options';
    const whole = searchSegments(one(docs, textOnly), q, 10);
    const half = searchSegments(one(docs, textOnly), q, 10, { splitPartWeight: 0.5 });
    expect(ids(half)[0]).toBe('answers');
    // Weight 1 is the plain search, score for score.
    expect(searchSegments(one(docs, textOnly), q, 10, { splitPartWeight: 1 })).toEqual(whole);
    expect(half.find((h) => h.id === 'names-it')!.score).toBeLessThan(whole.find((h) => h.id === 'names-it')!.score);
  });
});
