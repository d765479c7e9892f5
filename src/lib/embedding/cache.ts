/**
 * Embedding cache keyed by (embedder key, content hash), so unchanged text is never embedded twice
 * and vectors of different models never mix.
 *
 * One append-only file per embedder key under the directory the caller passes:
 *   header:  "TKEC" | u32 version | u32 dimension | u32 key length | key (utf-8) | zero pad to 4
 *   records: u8 hash length | hash (printable ASCII) | dimension × f32, all little-endian
 * A crash mid-append leaves a partial last record; loading ignores it and cuts it off before the
 * next append so later records stay aligned. A file whose header does not match is started over:
 * the cache is derived data.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, truncate, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { TkomaError } from '../errors.js';
import type { Embedder } from './types.js';
import { batches } from './vectors.js';

const MAGIC = Buffer.from('TKEC', 'latin1');
const VERSION = 1;
const LITTLE_ENDIAN = endianness() === 'LE';
/** Content hashes are hex digests; the restriction also lets loading spot a misaligned record. */
const HASH_PATTERN = /^[!-~]{1,255}$/;

/** File name for a key: readable, but the digest makes it unique and path-safe. */
export function cacheFileName(key: string): string {
  const slug = key.replace(/[^A-Za-z0-9.-]+/g, '_').slice(0, 80);
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 12);
  return `${slug}-${digest}.bin`;
}

export function encodeHeader(key: string, dimension: number): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  const unpadded = 16 + keyBytes.length;
  const header = Buffer.alloc(Math.ceil(unpadded / 4) * 4);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(VERSION, 4);
  header.writeUInt32LE(dimension, 8);
  header.writeUInt32LE(keyBytes.length, 12);
  keyBytes.copy(header, 16);
  return header;
}

export function encodeRecords(entries: readonly (readonly [string, Float32Array])[], dimension: number): Buffer {
  let total = 0;
  for (const [hash, vector] of entries) {
    if (!HASH_PATTERN.test(hash)) throw new Error(`cache hash must be 1–255 printable ASCII characters: "${hash}"`);
    if (vector.length !== dimension) throw new Error(`vector has ${vector.length} dims, cache expects ${dimension}`);
    total += 1 + hash.length + dimension * 4;
  }
  // One allocation for the whole append: flushes of thousands of records stay cheap.
  const out = Buffer.alloc(total);
  let o = 0;
  for (const [hash, vector] of entries) {
    out[o] = hash.length;
    o += 1 + out.write(hash, o + 1, 'latin1');
    if (LITTLE_ENDIAN) Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(out, o);
    else for (let i = 0; i < dimension; i++) out.writeFloatLE(vector[i]!, o + i * 4);
    o += dimension * 4;
  }
  return out;
}

export interface DecodedFile {
  /** False when the header is missing or belongs to another key/dimension/version. */
  valid: boolean;
  entries: Map<string, Float32Array>;
  /** Bytes up to the end of the last complete record. */
  goodLength: number;
}

/** `unit`: every stored vector is unit length or zero (what embedders write); others end the valid part. */
export function decodeFile(buf: Buffer, key: string, dimension: number, unit = false): DecodedFile {
  const header = encodeHeader(key, dimension);
  const entries = new Map<string, Float32Array>();
  if (buf.length < header.length || !buf.subarray(0, header.length).equals(header)) {
    return { valid: false, entries, goodLength: 0 };
  }
  let o = header.length;
  const recordBody = dimension * 4;
  while (o < buf.length) {
    const hashLength = buf[o]!;
    const end = o + 1 + hashLength + recordBody;
    if (hashLength === 0 || end > buf.length) break; // partial or damaged tail
    const hash = buf.toString('latin1', o + 1, o + 1 + hashLength);
    if (!HASH_PATTERN.test(hash)) break; // damaged: keep what came before
    const at = o + 1 + hashLength;
    const vector = new Float32Array(dimension);
    if (LITTLE_ENDIAN) buf.copy(Buffer.from(vector.buffer), 0, at, at + recordBody);
    else for (let i = 0; i < dimension; i++) vector[i] = buf.readFloatLE(at + i * 4);
    // Stored vectors are unit length (or zero): anything else is a damaged record.
    let sq = 0;
    for (let i = 0; i < dimension; i++) sq += vector[i]! * vector[i]!;
    if (unit && (!Number.isFinite(sq) || (sq !== 0 && Math.abs(sq - 1) > 1e-3))) break;
    entries.set(hash, vector);
    o = end;
  }
  return { valid: true, entries, goodLength: o };
}

interface KeyState {
  dimension: number;
  file: string;
  vectors: Map<string, Float32Array>;
  pending: [string, Float32Array][];
  /** Whether the file on disk holds a valid header for this key. */
  onDisk: boolean;
}

export class EmbeddingCache {
  private readonly keys = new Map<string, KeyState>();
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly dir: string) {}

  /** Loads the vectors stored for `key` (idempotent). Must precede get/putMany for that key. */
  async open(key: string, dimension: number): Promise<void> {
    const known = this.keys.get(key);
    if (known) {
      if (known.dimension !== dimension) throw new Error(`cache key ${key} opened with ${dimension} dims, was ${known.dimension}`);
      return;
    }
    const file = join(this.dir, cacheFileName(key));
    let buf: Buffer | undefined;
    try {
      buf = await readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const state: KeyState = { dimension, file, vectors: new Map(), pending: [], onDisk: false };
    if (buf) {
      const decoded = decodeFile(buf, key, dimension, true);
      if (decoded.valid) {
        state.vectors = decoded.entries;
        state.onDisk = true;
        // Cut a partial tail now, or the next append would be misread.
        if (decoded.goodLength < buf.length) await truncate(file, decoded.goodLength);
      }
    }
    this.keys.set(key, state);
  }

  private state(key: string): KeyState {
    const s = this.keys.get(key);
    if (!s) throw new Error(`embedding cache: open("${key}") first`);
    return s;
  }

  get(key: string, hash: string): Float32Array | undefined {
    return this.keys.get(key)?.vectors.get(hash);
  }

  has(key: string, hash: string): boolean {
    return this.keys.get(key)?.vectors.has(hash) ?? false;
  }

  /** Number of vectors held for `key`. */
  size(key: string): number {
    return this.keys.get(key)?.vectors.size ?? 0;
  }

  /** Adds vectors in memory; flush() writes them. Hashes already present are skipped. */
  putMany(key: string, entries: Iterable<readonly [string, Float32Array]>): void {
    const s = this.state(key);
    for (const [hash, vector] of entries) {
      if (vector.length !== s.dimension) {
        throw new Error(`vector for ${hash} has ${vector.length} dims, cache key ${key} holds ${s.dimension}`);
      }
      if (s.vectors.has(hash)) continue;
      const copy = Float32Array.from(vector); // callers may reuse their arrays
      s.vectors.set(hash, copy);
      s.pending.push([hash, copy]);
    }
  }

  /** Appends everything pending to disk, one write per key. Calls are serialised. */
  flush(): Promise<void> {
    // A failed flush must not poison later ones: pending entries stay queued for the next try.
    const run = this.writing.catch(() => undefined).then(() => this.writePending());
    this.writing = run;
    return run;
  }

  private async writePending(): Promise<void> {
    for (const [key, s] of this.keys) {
      if (s.pending.length === 0) continue;
      const records = encodeRecords(s.pending, s.dimension);
      await mkdir(this.dir, { recursive: true });
      if (!s.onDisk) {
        await writeFile(s.file, Buffer.concat([encodeHeader(key, s.dimension), records]));
        s.onDisk = true;
      } else {
        const handle = await open(s.file, 'a');
        try {
          await handle.write(records);
        } finally {
          await handle.close();
        }
      }
      s.pending = [];
    }
  }
}

export interface EmbedStats {
  vectors: Map<string, Float32Array>;
  /** Distinct texts sent to the embedder in this call. */
  embedded: number;
  /** Distinct hashes answered from the cache. */
  cached: number;
}

export interface EmbedOptions {
  batchSize?: number;
  /** Called after each batch with texts embedded so far and the number that needed embedding. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Vectors for every item's hash: cached ones from the cache, the rest embedded (each distinct hash
 * once, in batches) and written to the cache after every batch, so an interrupted run keeps its work.
 */
export async function embedWithCacheDetailed(
  embedder: Embedder,
  cache: EmbeddingCache,
  items: readonly { hash: string; text: string }[],
  opts: EmbedOptions = {},
): Promise<EmbedStats> {
  const key = embedder.key;
  await cache.open(key, embedder.dimension);
  const vectors = new Map<string, Float32Array>();
  const missing = new Map<string, string>();
  for (const { hash, text } of items) {
    if (vectors.has(hash) || missing.has(hash)) continue;
    const hit = cache.get(key, hash);
    if (hit) vectors.set(hash, hit);
    else missing.set(hash, text);
  }
  const cached = vectors.size;
  const todo = [...missing];
  let done = 0;
  for (const batch of batches(todo, opts.batchSize ?? 32)) {
    const out = await embedder.embedDocuments(batch.map(([, text]) => text));
    if (out.length !== batch.length) {
      throw new TkomaError('EMBEDDER_UNAVAILABLE', `${key} returned ${out.length} vectors for ${batch.length} texts`, {
        provider: embedder.provider,
      });
    }
    const entries = batch.map(([hash], i) => [hash, out[i]!] as const);
    for (const [hash, v] of entries) {
      if (v.length !== embedder.dimension) {
        throw new TkomaError('EMBEDDER_UNAVAILABLE', `${key} returned a ${v.length}-dimensional vector`, {
          provider: embedder.provider,
        });
      }
      vectors.set(hash, v);
    }
    cache.putMany(key, entries);
    await cache.flush();
    done += batch.length;
    opts.onProgress?.(done, todo.length);
  }
  return { vectors, embedded: todo.length, cached };
}

/** embedWithCacheDetailed, returning only the vectors by hash. */
export async function embedWithCache(
  embedder: Embedder,
  cache: EmbeddingCache,
  items: readonly { hash: string; text: string }[],
  opts: EmbedOptions = {},
): Promise<Map<string, Float32Array>> {
  return (await embedWithCacheDetailed(embedder, cache, items, opts)).vectors;
}
