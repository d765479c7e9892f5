/**
 * Candidates: the searched topics' indexes opened (synced and repaired when needed), then the
 * lexical and vector lists over them fused into one ranking of chunks.
 */
import type { Embedder } from '../embedding/types.js';
import { TkomaError } from '../errors.js';
import type { StoredChunk, TopicIndex } from '../index/service.js';
import { fileStatusOf } from '../store/model.js';
import type { ManifestLookup } from '../store/manifest-lookup.js';
import type { LoadedTopic } from '../store/topic-files.js';
import { type FusedHit, type FusionCandidate, type FusionOptions, fuse, type RankedItem, vectorWeightFor } from './fusion.js';
import type { SearchMode } from './search.js';
import { lexicalQuestion } from './question-frame.js';
import type { TopicTermCounts } from './topic-choice.js';
import { translatedPaths } from './translations.js';

export type LexicalSearch = Pick<typeof import('../index/service.js'), 'searchLexical' | 'searchLexicalAcross'>;

export interface Opened {
  root: string;
  topic: LoadedTopic;
  index: TopicIndex;
  manifest?: ManifestLookup;
}

/** Syncs the topics (cheap when nothing changed) and loads their indexes, repairing damage. */
export async function openIndexes(root: string, topics: LoadedTopic[], embedder: Embedder | null, syncFiles: boolean): Promise<Opened[]> {
  if (topics.length === 0) return [];
  const { syncIndex, lexicallyCurrent, loadHeadForReading: loadHead, loadTopicIndex } = await import('../index/service.js');
  const sync = async (topicIds: string[], verify: boolean): Promise<void> => {
    // Nothing moved: no lock (a background builder may be applying vectors right now).
    if (!verify && (await lexicallyCurrent(root, topicIds))) return;
    try {
      await syncIndex(root, { topicIds, embedder, verify, lockTimeoutMs: 2000 });
    } catch (err) {
      // Another process is writing the index, or the root is read-only: answer from what is there now.
      if (!(err instanceof TkomaError && (err.code === 'LOCKED' || err.code === 'READ_ONLY'))) throw err;
    }
  };
  if (syncFiles) {
    await sync(
      topics.map((t) => t.front.id),
      false,
    );
  }
  const out: Opened[] = [];
  for (const topic of topics) {
    const id = topic.front.id;
    let head = await loadHead(root, id);
    // A query reads the postings of its own terms only: the rest stay in the files, unread.
    let loaded = head ? await loadTopicIndex(root, id, head, { allPostings: false }) : null;
    if (!loaded || loaded.repaired.length > 0) {
      // Damaged parts (or a head written by another process meanwhile): repair and persist.
      await sync([id], true);
      head = await loadHead(root, id);
      loaded = head ? await loadTopicIndex(root, id, head, { allPostings: false }) : loaded;
    }
    if (loaded) out.push({ root, topic, index: loaded.index });
  }
  return out;
}

export interface ChunkRef {
  opened: Opened;
  chunk: StoredChunk;
}

/**
 * Vector neighbours below this cosine are noise (every chunk has a nearest neighbour); they are
 * not candidates. Low on purpose: code chunks score lower against prose questions than prose does.
 */
export const MIN_CHUNK_SIMILARITY = 0.1;

/** Candidate pool per list: enough for fusion to matter, small enough to stay fast. */
const pool = (limit: number): number => Math.max(50, limit * 5);

function byScore(a: RankedItem, b: RankedItem): number {
  return b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** Lexical and vector lists over every opened topic, fused. */
export async function rankChunks(
  question: string,
  opened: Opened[],
  embedder: Embedder | null,
  qvec: Float32Array | null,
  lexicalSearch: LexicalSearch,
  limit: number,
  mode: SearchMode = 'hybrid',
  roleBoosts?: FusionOptions['roleBoosts'],
): Promise<{ hits: FusedHit[]; refs: Map<string, ChunkRef>; topicTerms?: TopicTermCounts }> {
  const lexical: RankedItem[] = [];
  const vector: RankedItem[] = [];
  const candidates = new Map<string, FusionCandidate>();
  const refs = new Map<string, ChunkRef>();
  const n = pool(limit);
  const notes: { note: (cid: string, chunk?: StoredChunk) => string; usable: (cid: string) => boolean; filtered: boolean }[] = [];
  for (const o of opened) {
    const front = o.topic.front;
    const obsolete = new Set((front.file_status ?? []).filter((f) => f.status === 'obsolete').map((f) => f.path));
    const translated = translatedPaths(o.index);
    const usable = (cid: string): boolean => {
      const c = o.index.chunks.get(cid);
      return c !== undefined && !obsolete.has(c.path);
    };
    // `chunk`: the caller's lookup of cid, when it made one (a lookup parses the id each time).
    const note = (cid: string, chunk?: StoredChunk): string => {
      const key = `${front.id}\u0000${cid}`;
      if (!candidates.has(key)) {
        const c = chunk ?? o.index.chunks.get(cid)!;
        refs.set(key, { opened: o, chunk: c });
        candidates.set(key, {
          key,
          topicId: front.id,
          path: c.path,
          startLine: c.startLine,
          endLine: c.endLine,
          role: c.role,
          trust: front.trust_score,
          fileStatus: fileStatusOf(front, c.path),
          ...(translated(c.path) ? { translated: true } : {}),
          ...(qvec && mode === 'hybrid' && !(embedder && o.index.ann?.key === embedder.key && o.index.ann.has(cid)) ? { noVector: true } : {}),
        });
      }
      return key;
    };
    notes.push({ note, usable, filtered: obsolete.size > 0 });
    if (mode !== 'lexical' && qvec && embedder && o.index.ann?.key === embedder.key) {
      for (const h of o.index.ann.search(qvec, n, usable)) {
        if (h.similarity >= MIN_CHUNK_SIMILARITY) vector.push({ key: note(h.id), score: h.similarity });
      }
    }
  }
  // BM25 weighs what the question is about, not the words that make it a question.
  const words = lexicalQuestion(question);
  let topicTerms: TopicTermCounts | undefined;
  if (mode !== 'vector' && opened.length === 1) {
    // Segments answer live docs only (the head's file table), so a per-match filter is only
    // needed to drop obsolete files.
    const o = opened[0]!;
    const { note, usable, filtered } = notes[0]!;
    for (const h of await lexicalSearch.searchLexical(o.index, words, n, filtered ? usable : undefined)) {
      const c = o.index.chunks.get(h.id);
      if (c) lexical.push({ key: note(h.id, c), score: h.score });
    }
  } else if (mode !== 'vector' && opened.length > 1) {
    // Several topics: one corpus, so BM25 scores compare across topics (index/lexical-search.ts).
    const filter = notes.some((x) => x.filtered) ? (i: number, id: string) => notes[i]!.usable(id) : undefined;
    const across = await lexicalSearch.searchLexicalAcross(opened.map((o) => o.index), words, n, filter);
    for (const h of across.hits) {
      const c = opened[h.index]!.index.chunks.get(h.id);
      if (c) lexical.push({ key: notes[h.index]!.note(h.id, c), score: h.score });
    }
    const { stats } = across;
    // The query's words counted per topic: topic choice weighs each topic's words (topic-choice.ts).
    if (stats) topicTerms = { idf: stats.idf, topics: new Map(opened.map((o, i) => [o.topic.front.id, { docs: stats.docs[i]!, df: stats.df.map((d) => d[i]!) }])) };
  }
  lexical.sort(byScore);
  vector.sort(byScore);
  const lists = mode === 'hybrid' && vector.length > 0 ? 2 : 1;
  const hits = fuse(lexical.slice(0, n), vector.slice(0, n), candidates, { lists, vectorWeight: vectorWeightFor(embedder?.key), ...(roleBoosts ? { roleBoosts } : {}) });
  return { hits, refs, ...(topicTerms ? { topicTerms } : {}) };
}
