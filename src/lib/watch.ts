/**
 * `tkoma-ref watch`: keep the derived index in step with the reference files. File events are
 * debounced and turned into a sync of the topics they touch; a full reconcile also runs at start
 * and every `reconcileSeconds`, catching whatever events were missed (editors that replace files,
 * network filesystems, a watcher started after the change).
 */
import { basename, sep } from 'node:path';

import type { Embedder } from './embedding/types.js';
import type { SyncReport } from './index/service.js';
import { isValidTopicId } from './store/model.js';
import { referencesDir } from './store/root.js';
import { behindRemote } from './sync/remote.js';

export type WatchEvent =
  | { type: 'ready' }
  | { type: 'file'; event: string; path: string; topic: string }
  | { type: 'sync'; topics: string[]; report: SyncReport }
  | { type: 'reconcile'; report: SyncReport }
  | { type: 'error'; error: unknown }
  /** The root lacks commits its remote had when last fetched (the operator's `git fetch`, a sync elsewhere): never pulled here. */
  | { type: 'behind'; behind: number; upstream: string; message: string };

export interface WatchOptions {
  reconcileSeconds: number;
  onEvent?: (e: WatchEvent) => void;
  embedder: Embedder | null;
  /** Quiet time after the last file event before syncing (default 200 ms). */
  debounceMs?: number;
  /**
   * Runs each sync (the serve process passes its lock, so no answer reads an index that a sync
   * is halfway through updating in memory).
   */
  exclusive?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Keep a background vector builder going (default true; see vectors/background.ts). */
  vectors?: boolean;
  /**
   * The first reconcile (a listing of every file, compared with the index on this thread) waits
   * for this: an MCP server lets its first answer go first (at 300k chunks the two together took
   * the answer from seconds to many). A file event, flush() or the interval start it sooner.
   */
  firstReconcileAfter?: Promise<unknown>;
}

export interface Watcher {
  close(): Promise<void>;
  /** Starts the syncs of events still in their debounce now; resolves when none is queued or running. */
  flush(): Promise<void>;
  /**
   * How far the index may be behind the files of `topics` (every topic when absent): since when
   * a change to one of them has not been synced, and whether its sync is running now. Null: in step.
   */
  lag(topics?: readonly string[]): IndexLag | null;
}

export interface IndexLag {
  /** The earliest file event (or reconcile) not yet synced, ms since the epoch. */
  since: number;
  /** A sync covering it is running now (else it waits for the debounce or the sync before it). */
  syncing: boolean;
}

/**
 * Unsynced changes per topic: an event marks its topic from that moment until a sync that began
 * after it ends. Pure bookkeeping (clock passed in), so the rule can be tested alone.
 */
export class LagBook {
  private readonly waiting = new Map<string, number>();
  private readonly running = new Map<string, number>();
  private full: { since: number; syncing: boolean } | null = null;

  changed(topic: string, at: number): void {
    if (!this.waiting.has(topic)) this.waiting.set(topic, at);
  }

  reconcileDue(at: number): void {
    this.full ??= { since: at, syncing: false };
  }

  /** A sync of these topics (or a full reconcile) starts: what is waiting for it moves to running. */
  started(topics: readonly string[], full: boolean): void {
    for (const t of full ? [...this.waiting.keys()] : topics) {
      const at = this.waiting.get(t);
      if (at === undefined) continue;
      this.waiting.delete(t);
      this.running.set(t, Math.min(at, this.running.get(t) ?? at));
    }
    if (full && this.full) this.full.syncing = true;
  }

  ended(full: boolean): void {
    this.running.clear();
    if (full && this.full?.syncing) this.full = null;
  }

  lag(topics?: readonly string[]): IndexLag | null {
    let since = Infinity;
    let syncing = false;
    const consider = (at: number | undefined, isRunning: boolean): void => {
      if (at === undefined) return;
      if (at < since) since = at;
      if (isRunning) syncing = true;
    };
    for (const t of topics ?? [...new Set([...this.waiting.keys(), ...this.running.keys()])]) {
      consider(this.waiting.get(t), false);
      consider(this.running.get(t), true);
    }
    if (this.full) consider(this.full.since, this.full.syncing);
    return since === Infinity ? null : { since, syncing };
  }
}

/** The topic a path under references/ belongs to, or null (references/ itself, stray files). */
export function topicOfPath(refsDir: string, absPath: string): string | null {
  const prefix = refsDir.endsWith(sep) ? refsDir : refsDir + sep;
  if (!absPath.startsWith(prefix)) return null;
  const rest = absPath.slice(prefix.length);
  const id = rest.split(sep)[0] ?? '';
  return isValidTopicId(id) ? id : null;
}

/** Never watch git internals, our own state, or temp files of atomic writes. */
export function ignoredPath(absPath: string): boolean {
  const parts = absPath.split(sep);
  return parts.includes('.git') || parts.includes('.tkoma') || /\.tmp-\d+-\d+$/.test(absPath);
}

/**
 * Loads the chunkers, the tree-sitter runtime and the grammar of `path` (a file that just changed)
 * by cutting a one-line file of its name, while the sync waits out its debounce.
 */
async function warmChunker(path: string): Promise<void> {
  try {
    const { chunkFile } = await import('./chunking/index.js');
    await chunkFile(basename(path), 'a\n');
  } catch {
    // Only a warm-up: a real sync reports real errors.
  }
}

export async function startWatch(root: string, opts: WatchOptions): Promise<Watcher> {
  const { startWatchTree } = await import('./dir-watch.js');
  const { syncIndex } = await import('./index/service.js');
  const refs = referencesDir(root);
  const emit = (e: WatchEvent): void => {
    try {
      opts.onEvent?.(e);
    } catch {
      // A listener's failure must not stop the watcher.
    }
  };

  let closed = false;
  const book = new LagBook();
  const pending = new Set<string>();
  let fullPending = false;
  let timer: NodeJS.Timeout | undefined;
  // Syncs run one after another; events arriving meanwhile are batched for the next run.
  let running: Promise<void> = Promise.resolve();

  const { startVectorBuilder } = await import('./vectors/background.js');
  let builder: { kick(): void; close(): void } | null = null;
  // Said once per new count: a root behind its remote (as last fetched) is for the operator to sync.
  let lastBehind = 0;
  const noticeBehind = (): void => {
    const b = behindRemote(root);
    if (b && b.behind !== lastBehind) emit({ type: 'behind', ...b });
    lastBehind = b?.behind ?? 0;
  };
  const exclusive = opts.exclusive ?? (<T>(fn: () => Promise<T>): Promise<T> => fn());
  const syncPending = async (): Promise<void> => {
    if (closed) return;
    const full = fullPending;
    const topics = [...pending].sort();
    pending.clear();
    fullPending = false;
    book.started(topics, full);
    try {
      // Lexical only: vectors are built by the background builder, never while a search waits.
      if (full) {
        emit({ type: 'reconcile', report: await syncIndex(root, { embedder: null }) });
        noticeBehind();
      } else if (topics.length > 0) {
        emit({ type: 'sync', topics, report: await syncIndex(root, { topicIds: topics, embedder: null }) });
      }
    } finally {
      book.ended(full);
    }
    builder?.kick();
  };
  const runQueued = (): void => {
    // The chain never rejects: one failed sync must not stop the ones after it.
    running = running.then(() => exclusive(syncPending)).catch((error: unknown) => emit({ type: 'error', error }));
  };

  const schedule = (): void => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      runQueued();
    }, opts.debounceMs ?? 200);
  };

  // The parser and a grammar cost a server 13-16 MB that a search never uses (SciFact MCP server
  // after 10 searches: 145 MB without them, 158-161 MB with the usual three loaded at start). So
  // they load at the first change, during the debounce before its sync, not at start.
  let warmed = false;
  const onFile = (event: string, path: string): void => {
    const topic = topicOfPath(refs, path);
    if (!topic) return;
    if (!warmed && (event === 'add' || event === 'change')) {
      warmed = true;
      void warmChunker(path);
    }
    emit({ type: 'file', event, path, topic });
    book.changed(topic, Date.now());
    pending.add(topic);
    schedule();
  };
  // One watch per folder (dir-watch.ts): chokidar's watch per file ran out of inotify watches.
  // Its folders are watched while the first answers go out (they answer from the index as it is,
  // with its lag); no sync runs before every folder is watched, so the first reconcile still sees
  // every change made before it, and the watches every change after.
  const watcher = startWatchTree(refs, { ignored: ignoredPath, onEvent: onFile, onError: (error) => emit({ type: 'error', error }) });
  running = watcher.ready;

  // Reconcile what happened while nobody watched (the answers meanwhile report the lag), then on
  // every interval.
  fullPending = true;
  book.reconcileDue(Date.now());
  let firstQueued = false;
  const queueFirst = (): void => {
    if (firstQueued || closed) return;
    firstQueued = true;
    // A file event may have run the reconcile already (its sync takes a pending full one along).
    if (fullPending) runQueued();
    // After the first reconcile, so the builder sees the index it brought up to date.
    if (opts.vectors !== false) running = running.then(() => void (builder = startVectorBuilder(root)));
  };
  if (opts.firstReconcileAfter) void opts.firstReconcileAfter.then(queueFirst, queueFirst);
  else queueFirst();
  const interval = setInterval(
    () => {
      fullPending = true;
      if (firstQueued) runQueued();
      else queueFirst();
    },
    Math.max(1, opts.reconcileSeconds) * 1000,
  );
  interval.unref?.();
  // Whether the root is behind its remote is said after the first reconcile (syncPending), not
  // here: its git calls block the thread, and a server's first answer waits for this function.

  // 'ready' once every folder is watched: from then on no change goes unreported.
  void watcher.ready.then(() => {
    if (!closed) emit({ type: 'ready' });
  });

  return {
    lag: (topics) => book.lag(topics),
    async flush(): Promise<void> {
      queueFirst();
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
        runQueued();
      }
      await running;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      clearInterval(interval);
      builder?.close();
      await watcher.close();
      await running;
    },
  };
}
