/**
 * The index over topic notes (title, tags and body of every topic.md) that topic search and the
 * "pick the best topic" step of reference search use. Topic counts are small (tens to hundreds),
 * so one JSON file holds the text and one vector per topic; the BM25 side is built in memory at
 * query time from that text, which costs less than loading a serialized index would.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Embedder } from '../../embedding/types.js';
import { parseTopicMd } from '../../store/frontmatter.js';
import type { TopicFront } from '../../store/model.js';
import { referencesDir } from '../../store/root-path.js';
import { listTopicIds, TOPIC_FILE } from '../../store/topic-files.js';
import { embeddingCacheDir, isRecord, notesIndexFile, readJsonSafeSync, writeJsonAtomic } from '../layout.js';
import { sha256Hex } from '../scan.js';

const NOTES_FORMAT = 1;

export interface NoteEntry {
  size: number;
  mtimeMs: number;
  /** sha256 of topic.md. */
  sha256: string;
  title: string;
  tags: string[];
  body: string;
  status: TopicFront['status'];
  fetched_at: string;
  max_age_days: number;
  trust_score: number;
  /** sha256 of the text that is embedded (title, tags, body): the embedding cache key. */
  hash: string;
  /** Base64 of the float32 vector under NotesIndex.key, when embedded. */
  vector?: string;
}

export interface NotesIndex {
  format: number;
  key: string | null;
  dimension: number | null;
  topics: Record<string, NoteEntry>;
}

function isNotes(v: unknown): v is NotesIndex {
  return isRecord(v) && v.format === NOTES_FORMAT && isRecord(v.topics) && (v.key === null || typeof v.key === 'string');
}

export function emptyNotes(): NotesIndex {
  return { format: NOTES_FORMAT, key: null, dimension: null, topics: {} };
}

export async function loadNotes(root: string): Promise<NotesIndex> {
  // Synchronous: every search reads it (small) and waits for it; a thread-pool round trip cost more.
  return readJsonSafeSync(notesIndexFile(root), isNotes) ?? emptyNotes();
}

export function noteEmbedText(e: Pick<NoteEntry, 'title' | 'tags' | 'body'>): string {
  return `${e.title}\n${e.tags.join(', ')}\n${e.body}`.trim();
}

export function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function decodeVector(s: string, dimension: number): Float32Array | null {
  const buf = Buffer.from(s, 'base64');
  if (buf.length !== dimension * 4) return null;
  const out = new Float32Array(dimension);
  Buffer.from(out.buffer).set(buf);
  return out;
}

export interface NotesSyncResult {
  updated: number;
  removed: number;
  embedded: number;
  /** Topics whose topic.md does not parse: not searchable until fixed. */
  broken: string[];
  vector_error?: string;
}

/** Brings notes.json in line with every topic.md (stat first, hash and parse only what moved). */
export async function syncNotes(root: string, embedder: Embedder | null): Promise<NotesSyncResult> {
  const notes = await loadNotes(root);
  const result: NotesSyncResult = { updated: 0, removed: 0, embedded: 0, broken: [] };
  let dirty = false;
  const ids = await listTopicIds(root);
  const present = new Set(ids);
  for (const id of Object.keys(notes.topics)) {
    if (!present.has(id)) {
      delete notes.topics[id];
      result.removed++;
      dirty = true;
    }
  }
  for (const id of ids) {
    const file = join(referencesDir(root), id, TOPIC_FILE);
    const st = await lstat(file).catch(() => null);
    const known = notes.topics[id];
    if (!st || !st.isFile()) {
      if (known) {
        delete notes.topics[id];
        dirty = true;
      }
      continue;
    }
    if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) continue;
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    const sha256 = sha256Hex(text);
    if (known && known.sha256 === sha256) {
      notes.topics[id] = { ...known, size: st.size, mtimeMs: st.mtimeMs };
      dirty = true;
      continue;
    }
    let parsed;
    try {
      parsed = parseTopicMd(text, `references/${id}/${TOPIC_FILE}`);
      // A folder renamed by hand is a broken topic (store/topics.ts readTopic), not a note to find.
      if (parsed.front.id !== id) throw new Error('id does not match the folder');
    } catch {
      result.broken.push(id);
      if (known) {
        delete notes.topics[id];
        dirty = true;
      }
      continue;
    }
    const { front, body } = parsed;
    const entry: NoteEntry = {
      size: st.size,
      mtimeMs: st.mtimeMs,
      sha256,
      title: front.title,
      tags: front.tags,
      body,
      status: front.status,
      fetched_at: front.fetched_at,
      max_age_days: front.max_age_days,
      trust_score: front.trust_score,
      hash: '',
    };
    entry.hash = sha256Hex(noteEmbedText(entry));
    if (known?.vector && known.hash === entry.hash) entry.vector = known.vector;
    notes.topics[id] = entry;
    result.updated++;
    dirty = true;
  }

  if (!embedder && Object.values(notes.topics).some((e) => !e.vector)) {
    // No model at hand (every read, every lexical sync): a note that changed, or a notes index
    // rebuilt after damage, takes its vector from the embedding cache when the space has one.
    const { readMeta } = await import('../layout.js');
    const meta = notes.key ? null : await readMeta(root);
    let key = notes.key ?? meta?.embedder ?? null;
    let dimension = notes.dimension ?? meta?.dimension ?? null;
    if (!key) {
      // meta.json lost too: the space a topic's chunk index holds.
      // The shared read-only copy: a root without vectors comes here on every sync, and a big
      // topic's head is MBs of JSON (parsed twice per reconcile before).
      const { loadHeadForReading } = await import('../topic-index.js');
      for (const id of ids) {
        const v = (await loadHeadForReading(root, id))?.vectors;
        if (v) {
          key = v.key;
          dimension = v.dimension;
          break;
        }
      }
    }
    if (key && dimension) {
      const { EmbeddingCache } = await import('../../embedding/cache.js');
      const cache = new EmbeddingCache(embeddingCacheDir(root));
      await cache.open(key, dimension);
      let restored = 0;
      for (const e of Object.values(notes.topics)) {
        const v = e.vector ? undefined : cache.get(key, e.hash);
        if (v) {
          e.vector = encodeVector(v);
          restored++;
        }
      }
      if (restored > 0 || notes.key !== key) {
        notes.key = key;
        notes.dimension = dimension;
        dirty = true;
      }
    }
  }
  if (embedder) {
    if (notes.key !== embedder.key) {
      for (const e of Object.values(notes.topics)) delete e.vector;
      notes.key = embedder.key;
      notes.dimension = embedder.dimension;
      dirty = true;
    }
    const todo = Object.values(notes.topics).filter((e) => !e.vector);
    if (todo.length > 0) {
      try {
        const { EmbeddingCache, embedWithCacheDetailed } = await import('../../embedding/cache.js');
        const cache = new EmbeddingCache(embeddingCacheDir(root));
        const stats = await embedWithCacheDetailed(
          embedder,
          cache,
          todo.map((e) => ({ hash: e.hash, text: noteEmbedText(e) })),
        );
        for (const e of todo) {
          const v = stats.vectors.get(e.hash);
          if (v) e.vector = encodeVector(v);
        }
        result.embedded = stats.embedded;
        dirty = true;
      } catch (err) {
        // Notes stay searchable lexically; the next sync retries the vectors.
        result.vector_error = err instanceof Error ? err.message : String(err);
      }
    }
  }
  if (dirty) await writeJsonAtomic(notesIndexFile(root), notes);
  return result;
}

/** Drops one topic from notes.json (topic deletion). */
export async function removeNote(root: string, id: string): Promise<void> {
  const notes = await loadNotes(root);
  if (!notes.topics[id]) return;
  delete notes.topics[id];
  await writeJsonAtomic(notesIndexFile(root), notes);
}
