/**
 * A large build's postings spilled to disk in runs and merged into the segment file. Held in
 * memory, a build's postings grew with its chunks (8 bytes a posting in the stream, 8 more when
 * regrouped by term, ~84 postings a SciFact chunk): 1.3 GB of a million-chunk create's 2 GB peak.
 * A run is the postings of a stretch of docs, regrouped by term name and written to its own file;
 * the merge reads every run front to back at once and writes each term's postings run after run,
 * so they come out in doc order, as the in-memory build lays them out. Same file bytes.
 *
 * A run file (private, removed once merged):
 *   u32 terms, u32 postings
 *   u32[terms]     term numbers of the build's vocabulary, ordered by term name
 *   u32[terms]     how many postings each has in the run
 *   u32[postings]  doc numbers (of the whole build), grouped by term in that order
 *   f32[postings]  weighted tfs, likewise
 */
import { closeSync, openSync, rmSync } from 'node:fs';

import { readFully, writeFully } from '../../regular-file.js';

/** Elements read or written per system call (at most): 64 KB, four readers a run in a merge. */
const IO_ELEMENTS = 1 << 14;

const bytesOf = (a: Uint32Array | Float32Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** One run's postings as they came: (term, tf) blocks in doc order, `ends[i]` the stream's length after doc docBase + i. */
export interface RunInput {
  terms: readonly Uint32Array[];
  tfs: readonly Float32Array[];
  blockSize: number;
  length: number;
  ends: Uint32Array;
  docBase: number;
}

/** Writes `run` to `file`, its terms ordered by name (names[t] is term t's). */
export function writeRun(file: string, run: RunInput, names: readonly string[]): void {
  const { length: n, blockSize, ends, docBase } = run;
  const count = new Uint32Array(names.length);
  const blockLen = (b: number): number => Math.min(blockSize, n - b * blockSize);
  run.terms.forEach((terms, b) => {
    for (let i = 0, end = blockLen(b); i < end; i++) count[terms[i]!]!++;
  });
  const present: number[] = [];
  for (let t = 0; t < count.length; t++) if (count[t]! > 0) present.push(t);
  // String comparison by UTF-16 units: the order Array.prototype.sort gives the segment's terms.
  present.sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const ids = Uint32Array.from(present);
  const counts = new Uint32Array(ids.length);
  const cursor = new Uint32Array(names.length); // term -> next slot
  let at = 0;
  ids.forEach((t, r) => {
    counts[r] = count[t]!;
    cursor[t] = at;
    at += count[t]!;
  });
  const docs = new Uint32Array(n);
  const tfs = new Float32Array(n);
  let doc = 0;
  run.terms.forEach((terms, b) => {
    const blockTfs = run.tfs[b]!;
    for (let i = 0, end = blockLen(b), g = b * blockSize; i < end; i++, g++) {
      while (g >= ends[doc]!) doc++; // docs without postings end where the previous one did
      const slot = cursor[terms[i]!]!++;
      docs[slot] = docBase + doc;
      tfs[slot] = blockTfs[i]!;
    }
  });
  const fd = openSync(file, 'w');
  try {
    writeFully(fd, bytesOf(Uint32Array.of(ids.length, n)), null);
    for (const part of [ids, counts, docs, tfs]) writeFully(fd, bytesOf(part), null);
  } finally {
    closeSync(fd);
  }
}

const runEndedEarly = (): Error => new Error('A spilled posting run ended early.');

/** Reads u32 values of one section of a run file front to back. */
class Cursor {
  private readonly buf: Uint32Array;
  private at = 0;
  private have = 0;

  constructor(
    private readonly fd: number,
    /** Byte position of the next unread element in the file. */
    private pos: number,
    /** Elements left in the file's section. */
    private left: number,
  ) {
    this.buf = new Uint32Array(Math.min(IO_ELEMENTS, left));
  }

  private fill(): void {
    const want = Math.min(this.buf.length, this.left);
    const bytes = new Uint8Array(this.buf.buffer, 0, want * 4);
    if (readFully(this.fd, bytes, this.pos, bytes.length, 0) < bytes.length) throw runEndedEarly();
    this.pos += bytes.length;
    this.left -= want;
    this.at = 0;
    this.have = want;
  }

  next(): number {
    if (this.at === this.have) this.fill();
    return this.buf[this.at++]!;
  }

  /** Moves the next `n` elements to `out`. */
  moveTo(out: Writer, n: number): void {
    while (n > 0) {
      if (this.at === this.have) this.fill();
      const m = Math.min(n, this.have - this.at);
      out.put(this.buf.subarray(this.at, this.at + m));
      this.at += m;
      n -= m;
    }
  }
}

/** Writes u32 values (doc numbers, or tfs as their bits) to a file from a byte position on. */
class Writer {
  private readonly buf = new Uint32Array(IO_ELEMENTS);
  private used = 0;

  constructor(
    private readonly fd: number,
    private pos: number,
  ) {}

  put(values: Uint32Array): void {
    let i = 0;
    while (i < values.length) {
      const m = Math.min(values.length - i, IO_ELEMENTS - this.used);
      this.buf.set(values.subarray(i, i + m), this.used);
      this.used += m;
      i += m;
      if (this.used === IO_ELEMENTS) this.flush();
    }
  }

  flush(): void {
    const bytes = new Uint8Array(this.buf.buffer, 0, this.used * 4);
    writeFully(this.fd, bytes, this.pos);
    this.pos += bytes.length;
    this.used = 0;
  }
}

/** A run file opened for the merge: its terms, counts, docs and tfs each read in order. */
class RunReader {
  readonly fd: number;
  readonly terms: Cursor;
  readonly counts: Cursor;
  readonly docs: Cursor;
  readonly tfs: Cursor;
  /** Terms of the run not yet merged. */
  left: number;

  constructor(file: string) {
    this.fd = openSync(file, 'r');
    const head = new Uint32Array(2);
    if (readFully(this.fd, bytesOf(head), 0, 8) < 8) throw runEndedEarly();
    const [terms, postings] = [head[0]!, head[1]!];
    this.left = terms;
    this.terms = new Cursor(this.fd, 8, terms);
    this.counts = new Cursor(this.fd, 8 + 4 * terms, terms);
    this.docs = new Cursor(this.fd, 8 + 8 * terms, postings);
    this.tfs = new Cursor(this.fd, 8 + 8 * terms + 4 * postings, postings);
  }
}

/**
 * Each term's posting count over all runs, by term number (what the segment's postStart sums):
 * read from the runs' term sections, one run at a time.
 */
export function runTotals(files: readonly string[], termCount: number): Uint32Array {
  const total = new Uint32Array(termCount);
  for (const file of files) {
    const r = new RunReader(file);
    try {
      for (let i = 0; i < r.left; i++) total[r.terms.next()]! += r.counts.next();
    } finally {
      closeSync(r.fd);
    }
  }
  return total;
}

/**
 * Merges the runs into the segment file open as `fd`: doc numbers from byte `docsAt` on, tfs
 * from `tfsAt`, term by term in `rank` order (rank[t]: term t's place among the sorted names),
 * each term's postings run after run.
 */
export function mergeRuns(files: readonly string[], rank: Uint32Array, fd: number, docsAt: number, tfsAt: number): void {
  const runs = files.map((f) => new RunReader(f));
  try {
    const docsOut = new Writer(fd, docsAt);
    const tfsOut = new Writer(fd, tfsAt);
    // Each run's next term (its rank), or -1 when the run is used up.
    const head = runs.map((r) => (r.left > 0 ? rank[r.terms.next()]! : -1));
    const heads = runs.length;
    for (let next = nextRank(head); next >= 0; next = nextRank(head)) {
      for (let k = 0; k < heads; k++) {
        if (head[k] !== next) continue;
        const r = runs[k]!;
        const n = r.counts.next();
        r.docs.moveTo(docsOut, n);
        r.tfs.moveTo(tfsOut, n);
        head[k] = --r.left > 0 ? rank[r.terms.next()]! : -1;
      }
    }
    docsOut.flush();
    tfsOut.flush();
  } finally {
    for (const r of runs) closeSync(r.fd);
  }
}

function nextRank(head: readonly number[]): number {
  let min = -1;
  for (const h of head) if (h >= 0 && (min < 0 || h < min)) min = h;
  return min;
}

export function removeRuns(files: readonly string[]): void {
  for (const f of files) rmSync(f, { force: true });
}
