import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBeir, parseQrels } from '../../bench/lib/beir.js';
import { evaluate, mrrAt10, ndcgAt10, recallAt10, type Qrels } from '../../bench/lib/metrics.js';

const judged = (entries: [string, number][]) => new Map(entries);

describe('ndcgAt10', () => {
  it('is 1 for an ideal ranking and 0 without relevant hits', () => {
    expect(ndcgAt10(['a', 'b', 'x'], judged([['a', 1], ['b', 1]]))).toBeCloseTo(1, 12);
    expect(ndcgAt10(['x', 'y'], judged([['a', 1]]))).toBe(0);
    expect(ndcgAt10([], judged([['a', 1]]))).toBe(0);
  });

  it('discounts by log2(rank + 1)', () => {
    // one relevant doc at rank 3: 1/log2(4) = 0.5
    expect(ndcgAt10(['x', 'y', 'a'], judged([['a', 1]]))).toBeCloseTo(0.5, 12);
    // two relevant, found at ranks 2 and 4: (1/log2 3 + 1/log2 5) / (1 + 1/log2 3)
    const expected = (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3));
    expect(ndcgAt10(['x', 'a', 'y', 'b'], judged([['a', 1], ['b', 1]]))).toBeCloseTo(expected, 12);
  });

  it('uses graded gains and ignores hits past rank 10', () => {
    // gains 2 and 1, returned in the wrong order
    const expected = (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3));
    expect(ndcgAt10(['b', 'a'], judged([['a', 2], ['b', 1]]))).toBeCloseTo(expected, 12);
    const late = [...Array.from({ length: 10 }, (_, i) => `x${i}`), 'a'];
    expect(ndcgAt10(late, judged([['a', 1]]))).toBe(0);
  });

  it('counts a repeated document once, at its best rank', () => {
    expect(ndcgAt10(['a', 'a', 'b'], judged([['a', 1], ['b', 1]]))).toBeCloseTo(1, 12);
  });

  it('treats judged score 0 as not relevant', () => {
    expect(ndcgAt10(['z'], judged([['z', 0], ['a', 1]]))).toBe(0);
  });
});

describe('recallAt10 and mrrAt10', () => {
  it('recall is the share of relevant docs in the top 10', () => {
    expect(recallAt10(['a', 'x'], judged([['a', 1], ['b', 1]]))).toBe(0.5);
    expect(recallAt10(['b', 'a'], judged([['a', 1], ['b', 1]]))).toBe(1);
    const late = [...Array.from({ length: 10 }, (_, i) => `x${i}`), 'a'];
    expect(recallAt10(late, judged([['a', 1]]))).toBe(0);
  });

  it('mrr is 1 / rank of the first relevant doc within 10', () => {
    expect(mrrAt10(['x', 'y', 'a', 'b'], judged([['a', 1], ['b', 1]]))).toBeCloseTo(1 / 3, 12);
    expect(mrrAt10(['a'], judged([['a', 1]]))).toBe(1);
    const tenth = [...Array.from({ length: 9 }, (_, i) => `x${i}`), 'a'];
    expect(mrrAt10(tenth, judged([['a', 1]]))).toBeCloseTo(0.1, 12);
    const late = [...tenth.slice(0, 9), 'y', 'a'];
    expect(mrrAt10(late, judged([['a', 1]]))).toBe(0);
  });
});

describe('evaluate', () => {
  it('averages over every query in qrels; a missing query scores 0', () => {
    const qrels: Qrels = new Map([
      ['q1', judged([['a', 1]])],
      ['q2', judged([['b', 1]])],
    ]);
    const run = new Map([
      ['q1', ['a']],
      ['q3', ['b']], // not judged: ignored
    ]);
    const ev = evaluate(run, qrels);
    expect(ev.queries).toBe(2);
    expect(ev.ndcg10).toBeCloseTo(0.5, 12);
    expect(ev.recall10).toBeCloseTo(0.5, 12);
    expect(ev.mrr10).toBeCloseTo(0.5, 12);
    expect(ev.perQuery.get('q2')).toEqual({ ndcg10: 0, recall10: 0, mrr10: 0 });
  });

  it('skips queries with no relevant judgment (undefined ideal DCG)', () => {
    const qrels: Qrels = new Map([
      ['q1', judged([['a', 1]])],
      ['q2', judged([['b', 0]])],
    ]);
    const ev = evaluate(new Map([['q1', ['a']]]), qrels);
    expect(ev.queries).toBe(1);
    expect(ev.ndcg10).toBe(1);
  });
});

describe('beir loader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkoma-beir-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads corpus, queries and qrels (skipping the header row)', () => {
    writeFileSync(
      join(dir, 'corpus.jsonl'),
      '{"id": "d1", "title": "T", "text": "body"}\n{"_id": 7, "text": "no title"}\n',
    );
    writeFileSync(join(dir, 'queries.jsonl'), '{"id": "q1", "text": "what"}\n');
    writeFileSync(join(dir, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\t7\t2\n');
    const set = loadBeir(dir);
    expect(set.corpus).toEqual([
      { id: 'd1', title: 'T', text: 'body' },
      { id: '7', title: '', text: 'no title' },
    ]);
    expect(set.queries).toEqual([{ id: 'q1', text: 'what' }]);
    expect([...set.qrels.get('q1')!]).toEqual([
      ['d1', 1],
      ['7', 2],
    ]);
    expect(set.qrels.has('query-id')).toBe(false);
  });

  it('parseQrels groups judgments by query', () => {
    const q = parseQrels('h\th\th\na\tx\t1\nb\ty\t1\na\tz\t0\n');
    expect(q.get('a')?.size).toBe(2);
    expect(q.get('b')?.get('y')).toBe(1);
  });
});
