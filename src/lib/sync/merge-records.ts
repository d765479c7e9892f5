/**
 * Three-way merge of a topic's JSON-lines records (`.tkoma-files.jsonl`, `.tkoma-skipped.jsonl`),
 * by path: what one side changed and the other did not is taken as is. When both sides fetched
 * the topic again (both changed the file), a per-path mix could pair one side's bytes with the
 * other's upstream commit, so the side whose fetch is newer wins as a whole. Pure.
 */
import { parsePathRecord, pathRecordsText } from '../store/path-records.js';

interface PathRecord {
  path: string;
  fetched_at?: unknown;
}

export interface RecordsMerge {
  text: string;
  /** How the result was reached: `merged` by path, or one side taken whole because its fetch is newer. */
  how: 'same' | 'ours' | 'theirs' | 'merged';
}

function parse(text: string): Map<string, PathRecord> {
  const out = new Map<string, PathRecord>();
  for (const line of text.split('\n')) {
    const rec = parsePathRecord<PathRecord>(line);
    if (rec) out.set(rec.path, rec);
  }
  return out;
}

/** A record's identity for comparison: its JSON with keys in a fixed order. */
function key(rec: PathRecord | undefined): string {
  if (!rec) return '';
  return JSON.stringify(rec, Object.keys(rec).sort());
}

function sameRecords(a: Map<string, PathRecord>, b: Map<string, PathRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [p, r] of a) if (key(r) !== key(b.get(p))) return false;
  return true;
}

/** The newest `fetched_at` of a side's records (ms), or -Infinity when none carries one. */
export function newestFetch(records: Iterable<PathRecord>): number {
  let best = -Infinity;
  for (const r of records) {
    const t = typeof r.fetched_at === 'string' ? Date.parse(r.fetched_at) : NaN;
    if (!Number.isNaN(t) && t > best) best = t;
  }
  return best;
}

/**
 * `base` is '' when the file did not exist there (added on both sides). The result is written in
 * the tool's own layout (sorted by path, one record a line), so merging never reorders a file.
 */
export function mergeRecordsText(base: string, ours: string, theirs: string): RecordsMerge {
  const b = parse(base);
  const o = parse(ours);
  const t = parse(theirs);
  if (sameRecords(o, t)) return { text: ours, how: 'same' };
  if (sameRecords(o, b)) return { text: theirs, how: 'theirs' };
  if (sameRecords(t, b)) return { text: ours, how: 'ours' };
  // Both sides changed it. With fetch times (the manifest), the newer fetch is the topic's state.
  const to = newestFetch(o.values());
  const tt = newestFetch(t.values());
  if (to !== tt && (Number.isFinite(to) || Number.isFinite(tt))) return to > tt ? { text: ours, how: 'ours' } : { text: theirs, how: 'theirs' };
  // No times (the skipped list) or a tie: per path, each side's own change; a path both changed
  // differently takes the larger record, so every machine merging the same pair gets the same bytes.
  const merged: PathRecord[] = [];
  for (const p of new Set([...b.keys(), ...o.keys(), ...t.keys()])) {
    const [rb, ro, rt] = [b.get(p), o.get(p), t.get(p)];
    let pick: PathRecord | undefined;
    if (key(ro) === key(rt)) pick = ro;
    else if (key(ro) === key(rb)) pick = rt;
    else if (key(rt) === key(rb)) pick = ro;
    // Removed on one side, changed on the other: keep the record (a list never loses a file's story).
    else pick = !ro ? rt : !rt ? ro : key(ro) > key(rt) ? ro : rt;
    if (pick) merged.push(pick);
  }
  return { text: pathRecordsText(merged), how: 'merged' };
}
