/** Loads a benchmark folder in BEIR layout: corpus.jsonl, queries.jsonl, qrels.tsv (header row). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Qrels } from './metrics.js';

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  id: string;
  text: string;
}

export interface BeirSet {
  corpus: BeirDoc[];
  queries: BeirQuery[];
  qrels: Qrels;
}

function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`${file}:${i + 1}: not JSON`);
      }
    });
}

/** Ids may be numbers in some BEIR copies; everything downstream compares strings. */
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

export function parseQrels(tsv: string): Qrels {
  const qrels: Qrels = new Map();
  const lines = tsv.split('\n').filter((line) => line.trim() !== '');
  for (const line of lines.slice(1)) {
    const [qid, did, score] = line.split('\t');
    if (qid === undefined || did === undefined || score === undefined) continue;
    let judged = qrels.get(qid);
    if (!judged) qrels.set(qid, (judged = new Map()));
    judged.set(did, Number(score));
  }
  return qrels;
}

export function loadBeir(dir: string): BeirSet {
  const corpus = readJsonl(join(dir, 'corpus.jsonl')).map((r) => ({
    id: str(r.id ?? r._id),
    title: str(r.title),
    text: str(r.text),
  }));
  const queries = readJsonl(join(dir, 'queries.jsonl')).map((r) => ({
    id: str(r.id ?? r._id),
    text: str(r.text),
  }));
  const qrels = parseQrels(readFileSync(join(dir, 'qrels.tsv'), 'utf8'));
  return { corpus, queries, qrels };
}
