/**
 * Topic search (the seed's reference_topic_search): hybrid BM25 + vector ranking over topic
 * notes, so different names for one library ("Dioxus", "Rust UI", "RSX framework") find it.
 */
import type { Embedder } from '../embedding/types.js';
import { TkomaError } from '../errors.js';
import { decodeVector, loadNotes, type NoteEntry, syncNotes } from '../index/service.js';
import { staleness } from '../store/model.js';
import { rrf } from './fusion.js';
import { bodySnippet } from './snippet.js';

export interface TopicHit {
  topic_id: string;
  title: string;
  status: string;
  is_stale: boolean;
  stale_since: string | null;
  fetched_at: string;
  tags: string[];
  score: number;
  snippet: string;
}

/**
 * Which vector neighbours count as matches. Every query has a nearest topic, so some cut is
 * needed for "nothing relevant" to be an answer. Absolute cosines are poorly calibrated across
 * models (measured with use-lite on topic notes: the right topic 0.59–0.76, other software topics
 * 0.4–0.6, other domains 0.2–0.3), so a topic must clear a low absolute floor AND stay within a
 * margin of the best one.
 */
export const MIN_TOPIC_SIMILARITY = 0.3;
export const TOPIC_SIMILARITY_MARGIN = 0.15;

export interface RankedTopic {
  id: string;
  note: NoteEntry;
  score: number;
}

/** The longest search question or topic query (characters). */
const MAX_QUERY_CHARS = 4000;

export function validateQuery(query: unknown, field = 'query'): string {
  if (typeof query !== 'string' || query.trim() === '') {
    throw new TkomaError('INVALID_INPUT', `\`${field}\` must be a non-empty string`, { field });
  }
  // A question is words, not a document: a megabyte of it only ties up the process that ranks it.
  if (query.length > MAX_QUERY_CHARS) {
    throw new TkomaError('INVALID_INPUT', `\`${field}\` is longer than ${MAX_QUERY_CHARS} characters (${query.length}): ask with fewer words`, { field, max: MAX_QUERY_CHARS });
  }
  return query.trim();
}

/** Brings notes up to date; a sync running elsewhere is not waited for long (stale by seconds is fine). */
export async function syncNotesQuietly(root: string, embedder: Embedder | null): Promise<void> {
  try {
    // Loaded here: a search given its topic never ranks topics, so never takes this lock.
    const { withIndexLock } = await import('../lock.js');
    await withIndexLock(root, () => syncNotes(root, embedder), { timeoutMs: 2000 });
  } catch (err) {
    // Busy elsewhere, or a read-only root: rank from the notes there are.
    if (!(err instanceof TkomaError && (err.code === 'LOCKED' || err.code === 'READ_ONLY'))) throw err;
  }
}

/** Ranks topic notes for `query`; `qvec` is the query's vector under `embedder`, if any. */
export async function rankTopics(
  root: string,
  query: string,
  qvec: Float32Array | null,
  embedder: Embedder | null,
  opts: { includeObsolete?: boolean } = {},
): Promise<RankedTopic[]> {
  const notes = await loadNotes(root);
  const eligible = Object.entries(notes.topics).filter(([, n]) => opts.includeObsolete || n.status !== 'obsolete');
  if (eligible.length === 0) return [];

  const { createLexicalIndex, lexicalSearch, replaceDocs } = await (await import('../index/service.js')).loadNotesLexical();
  const lex = createLexicalIndex();
  replaceDocs(
    lex,
    eligible.map(([id, n]) => ({ id, title: n.title, path: id, text: n.body, tags: n.tags.join(' ') })),
  );
  const lexical = lexicalSearch(lex, query, eligible.length);

  const vector: { id: string; score: number }[] = [];
  if (qvec && embedder && notes.key === embedder.key && notes.dimension) {
    for (const [id, n] of eligible) {
      const v = n.vector ? decodeVector(n.vector, notes.dimension) : null;
      if (!v || v.length !== qvec.length) continue;
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i]! * qvec[i]!;
      if (s >= MIN_TOPIC_SIMILARITY) vector.push({ id, score: s });
    }
    vector.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    const cut = (vector[0]?.score ?? 0) - TOPIC_SIMILARITY_MARGIN;
    while (vector.length > 0 && vector[vector.length - 1]!.score < cut) vector.pop();
  }

  const lists = qvec ? 2 : 1;
  const scores = new Map<string, number>();
  lexical.forEach((h, i) => scores.set(h.id, (scores.get(h.id) ?? 0) + rrf(i + 1)));
  vector.forEach((h, i) => scores.set(h.id, (scores.get(h.id) ?? 0) + rrf(i + 1)));
  const byId = new Map(eligible);
  return [...scores.entries()]
    .map(([id, s]) => ({ id, note: byId.get(id)!, score: s / (lists * rrf(1)) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

export function topicHitOf(t: RankedTopic, now = new Date()): TopicHit {
  const st = staleness(t.note, now);
  return {
    topic_id: t.id,
    title: t.note.title,
    status: t.note.status,
    is_stale: st.is_stale,
    stale_since: st.stale_since,
    fetched_at: t.note.fetched_at,
    tags: t.note.tags,
    score: Math.round(t.score * 1000) / 1000,
    snippet: bodySnippet(t.note.body),
  };
}

export interface SearchTopicsOptions {
  limit?: number;
  includeObsolete?: boolean;
  /** Use this embedder (null: lexical only); absent: the root's embedder (resolveEmbedder). */
  embedder?: Embedder | null;
  /** --embedder, when `embedder` is absent. */
  embedderFlag?: string;
  /** Bring the notes up to date first (default true; false when a watcher keeps them so). */
  syncNotes?: boolean;
}

export async function searchTopics(root: string, query: string, opts: SearchTopicsOptions = {}): Promise<TopicHit[]> {
  const q = validateQuery(query);
  const limit = opts.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new TkomaError('INVALID_INPUT', '`limit` must be a whole number from 1 to 1000', { field: 'limit', value: limit });
  }
  // A read: notes are brought up to date lexically, and the query is embedded in the space the
  // notes index holds, by that space's model; nothing else is embedded, nothing is recorded.
  if (opts.syncNotes !== false) await syncNotesQuietly(root, null);
  let embedder: Embedder | null = null;
  if (opts.embedder !== undefined) embedder = opts.embedder;
  else {
    const { settingsFromEnv } = await import('../embedding/index.js');
    const { readConfig } = await import('../store/config.js');
    const config = await readConfig(root);
    const settings = settingsFromEnv(process.env, config.embedding as never, opts.embedderFlag);
    const key = (await loadNotes(root)).key;
    if (settings.provider !== 'none' && config.embedding.recorded !== 'none' && key) {
      const { embedderForKey } = await import('../vectors/space.js');
      embedder = await embedderForKey(root, key).catch(() => null);
    }
  }
  let qvec: Float32Array | null = null;
  if (embedder) {
    try {
      qvec = await embedder.embedQuery(q);
    } catch {
      qvec = null; // the model failed now: lexical ranking still answers
    }
  }
  const ranked = await rankTopics(root, q, qvec, embedder, { includeObsolete: opts.includeObsolete });
  return ranked.slice(0, limit).map((t) => topicHitOf(t));
}
