/**
 * A create's chunking, started while its files are still being fetched. The sync that indexes a
 * new topic used to start the chunk threads only once every file was fetched and committed: on
 * the Dioxus repository the one thread then cut for 2.2 s while this thread waited, after 1.2 s of
 * fetching during which the other core had little to do. Here the threads start as soon as the
 * tree's paths are known, and each fetched file's text goes to them as it is written; the sync
 * then takes a file's chunks from here only when the bytes it read from disk hash to the ones cut
 * (the files on disk are the truth), and cuts anything else itself, as it would have.
 *
 * One object per create: the create owns it and closes it on every path; the sync closes it as
 * soon as its chunking is done (closing twice is fine).
 */
import { trickOff } from '../settings.js';
import type { ChunkedFile, ChunkPool, PoolOptions } from './pool.js';

/**
 * Text sent ahead, in bytes, until the sync takes it: beyond it, files are cut by the sync as
 * before. A held file's text stays alive in this thread (its chunks are slices of it), with its
 * chunks and counted terms: ~1.4 bytes of heap per byte of text (the Dioxus repository five
 * times over, 36 MB of Rust: 24 MB held raised the create's peak by 33 MB). The whole Dioxus
 * repository is ~8.4 MB of text.
 */
export const AHEAD_TEXT_BYTES = 12 * 1024 * 1024;

/**
 * Trees with more files than this are not cut ahead. The fetch's own tables grow with the files
 * (at 692k files they are a create's peak, ~530 MiB, reached during the fetch), and a chunk thread
 * (~30 MB) and the held text would add to that peak; what the thread can cut during a fetch is a
 * few seconds of a create of minutes.
 */
export const AHEAD_MAX_FILES = 100_000;

interface Held {
  sha256: string;
  bytes: number;
  chunked: Promise<ChunkedFile>;
}

export class ChunksAhead {
  private pool: ChunkPool | null = null;
  /** Every path expected so far, while no thread is started. */
  private readonly paths: string[] = [];
  private readonly held = new Map<string, Held>();
  private heldBytes = 0;
  private closed = false;
  /** Files sent to the threads from here. */
  sent = 0;
  /** Files whose chunks the sync took from here (their bytes unchanged since the fetch). */
  taken = 0;

  private readonly capBytes: number;
  private readonly poolOptions: PoolOptions;

  constructor(
    /** The topic whose files these are: the sync takes chunks from here for this topic only. */
    readonly topic: string,
    { capBytes = AHEAD_TEXT_BYTES, ...poolOptions }: { capBytes?: number } & PoolOptions = {},
  ) {
    this.capBytes = capBytes;
    this.poolOptions = poolOptions;
  }

  /**
   * The paths a source will write (its tree, under the topic), before any is fetched. Once the
   * paths so far warrant chunk threads (startChunkPool's rule, as the sync applies it) they start;
   * until then, nothing is cut ahead, and the sync does as it always did.
   */
  async expect(paths: readonly string[]): Promise<void> {
    if (this.closed || this.pool || this.paths.length > AHEAD_MAX_FILES || trickOff('chunks-ahead')) return;
    for (const p of paths) this.paths.push(p);
    if (this.paths.length > AHEAD_MAX_FILES) return;
    const { startChunkPool } = await import('./pool.js');
    const pool = startChunkPool(this.paths, this.poolOptions);
    if (this.closed || pool.threads === 0) await pool.close();
    else {
      this.pool = pool;
      this.paths.length = 0;
    }
  }

  /** A fetched file's bytes (and their hash): sent to a thread when one cuts it and the cap allows. */
  offer(path: string, data: Buffer, sha256: string): void {
    const pool = this.pool;
    if (!pool || !pool.threaded(path) || this.held.has(path) || this.heldBytes + data.length > this.capBytes) return;
    const chunked = pool.chunk(path, data.toString('utf8'));
    chunked.catch(() => undefined); // taken, it is awaited by the sync; never taken, it is dropped
    this.held.set(path, { sha256, bytes: data.length, chunked });
    this.heldBytes += data.length;
    this.sent++;
  }

  /** The threads for the sync to cut the rest with, their last partial batch sent; null when none started. */
  threads(): ChunkPool | null {
    this.paths.length = 0; // the fetch is over: no more sources to start threads for
    this.pool?.flush();
    return this.pool;
  }

  /**
   * The chunks of `path` as cut from the fetched bytes, when those hash to `sha256` (the bytes
   * the sync read); else undefined, and the sync cuts what it read. Each file is taken once.
   */
  take(path: string, sha256: string): Promise<ChunkedFile> | undefined {
    const held = this.held.get(path);
    if (!held) return undefined;
    this.held.delete(path);
    this.heldBytes -= held.bytes;
    if (held.sha256 !== sha256) return undefined;
    this.taken++;
    return held.chunked;
  }

  /** Ends the threads and drops what was not taken. */
  async close(): Promise<void> {
    this.closed = true;
    this.paths.length = 0;
    this.held.clear();
    this.heldBytes = 0;
    const pool = this.pool;
    this.pool = null;
    await pool?.close();
  }
}
