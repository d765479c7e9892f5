/**
 * Where the derived index lives under `<root>/.tkoma/` and how its files are written and read.
 * Everything here is disposable: a missing or damaged file is reported as `null` so the caller
 * rebuilds that part from the reference files instead of failing.
 *
 * ```
 * .tkoma/index/meta.json                 format version, embedder key/dimension of the last sync
 * .tkoma/index/notes.json                topic-notes index (title, tags, body, vector per topic)
 * .tkoma/index/topics/<id>/head.json     file table (each file names its segment), segment list
 * .tkoma/index/topics/<id>/seg-<g>.rec   chunk records of one segment (no text; binary)
 * .tkoma/index/topics/<id>/seg-<g>.txt   their texts, back to back
 * .tkoma/index/topics/<id>/seg-<g>.lex   binary BM25 segment over them (bm25/)
 * .tkoma/index/topics/<id>/ann.json      label map of the hnsw file + its generation
 * .tkoma/index/topics/<id>/ann-<g>.hnsw  hnswlib index (cosine)
 * .tkoma/cache/embeddings/               embedding cache, kept across rebuilds
 * .tkoma/index.lock/                     cross-process lock (outside index/ so rebuild keeps it; lock.ts)
 * ```
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { stateDir } from '../store/root-path.js';
import { readRegular } from '../regular-file.js';

/** Bump when any file layout below changes: an index of another format is deleted and rebuilt. */
export const INDEX_FORMAT = 3; // 2: per-topic segments; 3: chunk counts in the file table

export function indexDir(root: string): string {
  return join(stateDir(root), 'index');
}

export function topicsIndexDir(root: string): string {
  return join(indexDir(root), 'topics');
}

export function topicIndexDir(root: string, id: string): string {
  return join(topicsIndexDir(root), id);
}

/** A head's hot part in binary beside head.json (head-hot.ts), for heads of 4,000 files or more. */
export function hotHeadFile(root: string, id: string): string {
  return join(topicIndexDir(root, id), 'head-hot.bin');
}

export function notesIndexFile(root: string): string {
  return join(indexDir(root), 'notes.json');
}

export function metaFile(root: string): string {
  return join(indexDir(root), 'meta.json');
}

export function embeddingCacheDir(root: string): string {
  return join(stateDir(root), 'cache', 'embeddings');
}

let tmpCounter = 0;

/** A name to write `file` under before renaming it into place (`<file>.tmp-<pid>-<n>`). */
export function tempName(file: string): string {
  return `${file}.tmp-${process.pid}-${++tmpCounter}`;
}

/**
 * Temp file + rename, so a reader never sees half a file and a crash leaves the old one. `data`
 * may come in pieces, written one after another (each before the next is asked for), so a large
 * file need not exist in memory as one buffer.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<Uint8Array>): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = tempName(file);
  try {
    await writeFile(tmp, data);
    await rename(tmp, file).catch(async (err: NodeJS.ErrnoException) => {
      // A folder where an index file belongs (derived state, damaged): replaced.
      if (err.code !== 'EISDIR' && err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      await rm(file, { recursive: true, force: true });
      await rename(tmp, file);
    });
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(value));
}

/** Parsed JSON that passes `valid`, or null when the file is missing, truncated or garbage. */
export async function readJsonSafe<T>(file: string, valid: (v: unknown) => v is T): Promise<T | null> {
  return readJsonSafeSync(file, valid);
}

/** readJsonSafe, read synchronously (a file the caller waits for anyway: see soft-fs.ts). */
export function readJsonSafeSync<T>(file: string, valid: (v: unknown) => v is T): T | null {
  let text: string | null;
  try {
    text = readRegular(file).toString('utf8');
  } catch {
    text = null;
  }
  return parseJsonSafe(text, valid);
}

function parseJsonSafe<T>(text: string | null, valid: (v: unknown) => v is T): T | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return valid(value) ? value : null;
  } catch {
    return null;
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface IndexMeta {
  format: number;
  /** Key of the embedder the last sync used (`provider:model:dimension`), null if none yet. */
  embedder: string | null;
  dimension: number | null;
  updated_at: string;
}

function isMeta(v: unknown): v is IndexMeta {
  return isRecord(v) && typeof v.format === 'number';
}

/** null when missing or unreadable; a readable meta of another format still says so. */
export async function readMeta(root: string): Promise<IndexMeta | null> {
  // A few bytes every search reads first: a thread-pool round trip cost more than the read.
  const meta = readJsonSafeSync(metaFile(root), isMeta);
  if (!meta) return null;
  return {
    format: meta.format,
    embedder: typeof meta.embedder === 'string' ? meta.embedder : null,
    dimension: typeof meta.dimension === 'number' ? meta.dimension : null,
    updated_at: typeof meta.updated_at === 'string' ? meta.updated_at : '',
  };
}

export async function writeMeta(root: string, meta: IndexMeta): Promise<void> {
  await writeJsonAtomic(metaFile(root), meta);
}
