/**
 * Query-time helpers of query.ts: a reusable score accumulator and a bounded top-k heap.
 */
import type { Bm25Hit } from './query.js';

/**
 * One score accumulator reused across queries: allocating (and later collecting) a fresh 800 kB
 * array per query at 100k docs costs more than zeroing it (measured ~1.4 vs ~1.1 ms a query).
 * A nested call (an `accept` callback that searches) gets its own array.
 */
let scratch = new Float64Array(0);
let scratchBusy = false;

export function takeScratch(size: number): Float64Array {
  if (scratchBusy) return new Float64Array(size);
  scratchBusy = true;
  if (scratch.length < size) scratch = new Float64Array(Math.max(size, scratch.length * 2));
  return scratch.subarray(0, size);
}

export function releaseScratch(acc: Float64Array): void {
  if (acc.buffer !== scratch.buffer) return;
  acc.fill(0);
  scratchBusy = false;
}

/**
 * The k best (score desc, id asc, view asc) seen so far, as a binary heap with the worst entry
 * on top; `accept` is consulted only for a candidate that would enter the heap.
 */
export class TopK {
  private readonly scores: number[] = [];
  private readonly views: number[] = [];
  private readonly docs: number[] = [];
  private readonly ids: string[] = [];

  constructor(
    private readonly k: number,
    private readonly accept?: (id: string, view: number) => boolean,
  ) {}

  /** True when entry i ranks below entry j. */
  private worse(i: number, j: number): boolean {
    const a = this.scores[i]!;
    const c = this.scores[j]!;
    if (a !== c) return a < c;
    const x = this.ids[i]!;
    const y = this.ids[j]!;
    if (x !== y) return x > y;
    return this.views[i]! > this.views[j]!;
  }

  /** True when the candidate ranks below the current worst entry. */
  private belowTop(score: number, view: number, id: string): boolean {
    const top = this.scores[0]!;
    if (score !== top) return score < top;
    const topId = this.ids[0]!;
    if (id !== topId) return id > topId;
    return view > this.views[0]!;
  }

  offer(score: number, view: number, doc: number, ids: { idAt(doc: number): string }): void {
    const size = this.scores.length;
    if (size === this.k) {
      if (score < this.scores[0]!) return; // the common case: no id needed
      if (this.belowTop(score, view, ids.idAt(doc))) return;
    }
    const id = ids.idAt(doc);
    if (this.accept && !this.accept(id, view)) return;
    if (size < this.k) {
      this.scores.push(score);
      this.views.push(view);
      this.docs.push(doc);
      this.ids.push(id);
      this.siftUp(size);
    } else {
      this.set(0, score, view, doc, id);
      this.siftDown(0);
    }
  }

  private set(i: number, score: number, view: number, doc: number, id: string): void {
    this.scores[i] = score;
    this.views[i] = view;
    this.docs[i] = doc;
    this.ids[i] = id;
  }

  private swap(i: number, j: number): void {
    const [s, v, d, id] = [this.scores[i]!, this.views[i]!, this.docs[i]!, this.ids[i]!];
    this.set(i, this.scores[j]!, this.views[j]!, this.docs[j]!, this.ids[j]!);
    this.set(j, s, v, d, id);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const size = this.scores.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < size && this.worse(l, worst)) worst = l;
      if (r < size && this.worse(r, worst)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  sorted(): Bm25Hit[] {
    const hits: Bm25Hit[] = this.scores.map((score, i) => ({
      view: this.views[i]!,
      doc: this.docs[i]!,
      id: this.ids[i]!,
      score,
    }));
    return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.view - b.view));
  }
}
