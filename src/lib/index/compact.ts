/**
 * Segment compaction. Every sync adds a small segment and leaves the replaced chunks dead in
 * older ones; merging keeps queries from visiting many segments and dead docs. The policy is a
 * pure function; `compactSegments` applies it.
 */
import { type ChunkRecord, readSegmentChunks, writeSegment } from './segments.js';
import { nextGeneration, type SegmentInfo, type TopicHead } from './topic-index.js';

/** More segments than this: the small ones (all but the base) are merged into one. */
export const MAX_SEGMENTS = 8;
/** Dead docs plus docs outside the base above this share of live docs: everything is merged. */
export const FULL_MERGE_RATIO = 0.25;

/** Live docs per segment generation according to the file table. */
export function liveBySegment(head: Pick<TopicHead, 'files'>): Map<number, number> {
  const out = new Map<number, number>();
  for (const f of head.files.values()) {
    if (f.seg !== undefined && f.chunkCount > 0) out.set(f.seg, (out.get(f.seg) ?? 0) + f.chunkCount);
  }
  return out;
}

/** Pure: which segments to merge now (empty: none). */
export function planCompaction(segments: readonly SegmentInfo[], live: ReadonlyMap<number, number>): SegmentInfo[] {
  if (segments.length === 0) return [];
  const liveTotal = [...live.values()].reduce((a, b) => a + b, 0);
  let dead = 0;
  for (const s of segments) dead += s.docs - (live.get(s.gen) ?? 0);
  const outsideBase = segments.slice(1).reduce((n, s) => n + s.docs, 0);
  // A segment left with no live doc is always dropped; merging it costs nothing.
  if (segments.length > 1 && dead + outsideBase > FULL_MERGE_RATIO * liveTotal) return [...segments];
  if (segments.length === 1 && dead > FULL_MERGE_RATIO * liveTotal) return [...segments];
  if (segments.length > MAX_SEGMENTS) return segments.slice(1);
  return [];
}

/**
 * Merges the planned segments into one new segment and points their files at it. Mutates
 * `head` (segments, files, generation). Returns false, changing nothing, when a segment cannot be
 * read: the damage is repaired by the next verifying sync instead.
 */
export async function compactSegments(root: string, topic: string, head: TopicHead): Promise<boolean> {
  const pick = planCompaction(head.segments, liveBySegment(head));
  if (pick.length === 0) return false;
  const merged: ChunkRecord[] = [];
  for (const info of pick) {
    const chunks = await readSegmentChunks(root, topic, info.gen);
    if (!chunks) return false;
    for (const c of chunks) if (head.files.get(c.path)?.seg === info.gen) merged.push(c);
  }
  const gen = nextGeneration(head.generation);
  const picked = new Set(pick.map((s) => s.gen));
  const kept = head.segments.filter((s) => !picked.has(s.gen));
  let ids: string | undefined;
  if (merged.length > 0) {
    ids = (await writeSegment(root, topic, gen, merged)).records.digest.toString('base64');
    // Entries are values (file-table.ts): each moved file gets a new one, starting at its first record.
    merged.forEach((r, i) => {
      const f = head.files.get(r.path)!;
      if (f.seg !== gen) head.files.set(r.path, { ...f, seg: gen, start: i });
    });
  }
  // The merged segment holds the oldest of the picked docs: it takes the front when the base was picked.
  const mergedInfo = merged.length > 0 ? [{ gen, docs: merged.length, ids: ids! }] : [];
  head.segments = picked.has(head.segments[0]!.gen) ? [...mergedInfo, ...kept] : [...kept, ...mergedInfo];
  head.generation = gen;
  return true;
}
