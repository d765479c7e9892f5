/**
 * What the vector side of a root looks like without starting any model: the target space, what
 * each topic serves and how many chunks still wait. Cheap: heads and the config only.
 */
import { type IndexStatus, indexStatus, loadHead, loadNotes } from '../index/service.js';
import { listTopicIds } from '../store/topic-files.js';
import { pendingOf, type TopicPending, vectorTarget } from './target.js';

/** What a create or refresh answer says about vectors (`vector_search`). */
export interface VectorOutlook {
  available: boolean;
  /** The recorded space (or what the config names when nothing is recorded). */
  embedder?: string;
  reason?: string;
  /** Chunks of these topics still without a vector of that space (0 when chunk vectors are off). */
  pending?: number;
  /** Whether chunks get vectors at all in this space (topic notes always do). */
  chunk_vectors?: boolean;
  /** Who builds them: a background worker (its pid), or why nobody does. */
  building?: { pid?: number; reason?: string };
}

export interface VectorStatus {
  target: string;
  chunk_vectors: boolean;
  builder: { pid: number; since: string } | null;
  notes: { serving: string | null; topics: number; with_vectors: number };
  topics: Record<string, TopicPending>;
  pending: number;
}

export async function vectorStatus(root: string, topicIds?: string[]): Promise<VectorStatus> {
  const target = await vectorTarget(root);
  const ids = topicIds ?? (await listTopicIds(root));
  const topics: Record<string, TopicPending> = {};
  let pending = 0;
  for (const id of ids) {
    const p = pendingOf(await loadHead(root, id), target.key, target.chunks && !target.off);
    topics[id] = p;
    pending += p.pending;
  }
  const notes = await loadNotes(root);
  const entries = Object.values(notes.topics);
  const { vectorBuilder } = await import('./background.js');
  const b = vectorBuilder(root);
  return {
    target: target.label,
    chunk_vectors: target.chunks && !target.off,
    builder: b ? { pid: b.pid, since: b.since } : null,
    notes: { serving: notes.key, topics: entries.length, with_vectors: entries.filter((e) => e.vector).length },
    topics,
    pending,
  };
}

/** After create/refresh: what the answer says about vectors, and the background worker started. */
export async function vectorOutlook(root: string, topicIds: string[], opts: { flag?: string; warnings: string[] }): Promise<VectorOutlook> {
  const target = await vectorTarget(root);
  const flag = opts.flag?.trim().toLowerCase();
  if (flag && flag !== 'auto' && flag !== 'none' && target.key && !target.key.startsWith(`${flag}:`)) {
    opts.warnings.push(`--embedder ${flag} ignored: this knowledge root records ${target.key} (change it with \`tkoma-ref index embedder set\`)`);
  }
  if (target.off || flag === 'none') {
    return { available: false, reason: target.off ? 'embedder "none": lexical search only' : '--embedder none: no vectors built now', pending: 0, chunk_vectors: false };
  }
  let pending = 0;
  for (const id of topicIds) pending += pendingOf(await loadHead(root, id), target.key, target.chunks).pending;
  const { requestVectors } = await import('./background.js');
  const spawned = await requestVectors(root);
  return {
    available: true,
    embedder: target.label,
    pending,
    chunk_vectors: target.chunks,
    building: spawned.pid !== undefined ? { pid: spawned.pid, ...(spawned.reason ? { reason: spawned.reason } : {}) } : { reason: spawned.reason ?? 'not started' },
  };
}

/** Cheap: is there anything for a builder to do (notes or chunks missing in the target space)? */
export async function hasVectorWork(root: string): Promise<boolean> {
  const target = await vectorTarget(root);
  if (target.off) return false;
  const notes = await loadNotes(root);
  const entries = Object.values(notes.topics);
  if (entries.length > 0 && ((target.key !== null && notes.key !== target.key) || notes.key === null || entries.some((e) => !e.vector))) return true;
  if (!target.chunks) return false;
  for (const id of await listTopicIds(root)) {
    if (pendingOf(await loadHead(root, id), target.key, true).pending > 0) return true;
  }
  return false;
}

/**
 * `index status`: the index's own figures plus the vector work per topic (what each serves, what
 * is pending, who builds). `known`: the root's conflicted files as conflictedPaths({deep}) just
 * found them (doctor's git check), so they are not looked for twice.
 */
export async function indexStatusWithVectors(root: string, known?: string[]): Promise<IndexStatus & { vector_work: VectorStatus; conflicted?: true; conflicts?: { topic_id: string; path: string }[] }> {
  const status = await indexStatus(root);
  // A rebuilt index records no space until vectors land; the root's recorded embedder is still the answer.
  const embedder = status.embedder ?? (await vectorTarget(root)).key;
  // Files a merge left conflicted are indexed as they are (markers and all): say which.
  const { conflictedPaths, byTopic } = await import('../root-state.js');
  const conflicts = [...byTopic(known ?? (await conflictedPaths(root, { deep: true })))].flatMap(([topic_id, paths]) => paths.map((path) => ({ topic_id, path })));
  return { ...status, embedder, vector_work: await vectorStatus(root), ...(conflicts.length ? { conflicted: true as const, conflicts } : {}) };
}
