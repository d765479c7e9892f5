/**
 * The MCP server's warm state: one embedder, the topics' indexes in memory, and a watcher that
 * keeps them in step with hand edits and other processes' commits. It is the `serve` machinery
 * (lib/serve/server.ts): when no other server answers for the root, the MCP process also serves
 * the root's unix socket, so `tkoma-ref search` in a shell is warm too. When a `serve`/`watch`
 * already owns the socket, it runs its own watcher behind the same kind of gate instead.
 *
 * Warming runs in the background: the MCP handshake and `tools/list` never wait for it; the first
 * tool call that needs an index does.
 *
 * Vectors (issue 10): pending vectors are built by whatever the index sync does today. A
 * background builder plugs in at `onIdle` below: it is called after warm-up and after every
 * mutation, with the gate free, and is the place to start embedding the pending chunks.
 */
import type { Embedder } from '../embedding/types.js';
import { TkomaError } from '../errors.js';
import type { IndexLag } from '../watch.js';

export interface WarmOptions {
  embedderFlag?: string;
  reconcileSeconds?: number;
  /** Serve the root's unix socket too (default true). */
  serveSocket?: boolean;
  log?: (message: string) => void;
  /** Hook for background vector building (issue 10); see the module comment. */
  onIdle?: (warm: WarmState) => void;
}

export interface WarmState {
  embedder: Embedder | null;
  /** 'socket' when this process also answers the CLI over the serve socket. */
  mode: 'socket' | 'watch';
  socket: string | null;
  watching(): boolean;
  /** Runs fn alone with respect to index syncs and other answers (never nest). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * How far the index is behind the files of these topics. Searches do not wait for syncs: they
   * answer from the last index a sync wrote (heads are replaced whole) and report this.
   */
  lag(topics?: readonly string[]): IndexLag | null;
  close(): Promise<void>;
}

export interface Warm {
  /** Starts warming (if not yet) and resolves once the embedder is loaded and the indexes are preloaded. */
  readonly ready: Promise<WarmState>;
  /** Starts warming now (the first tool call does it too): called once the handshake is done. */
  kick(): void;
  /** Runs fn exclusively once warm. */
  exclusive<T>(fn: (w: WarmState) => Promise<T>): Promise<T>;
  /** Tells the idle hook that something changed (after a mutation). */
  touched(): void;
  /** A tool call begins / ends: the watcher's first reconcile waits for the first answer. */
  callStarted(): void;
  callEnded(): void;
  close(): Promise<void>;
}

/**
 * How long a warm server waits for a first tool call before its first reconcile starts anyway.
 * A host usually calls right after the handshake; one that does not gets the reconcile early.
 */
const FIRST_CALL_GRACE_MS = 1000;
/**
 * The longest the first reconcile waits after warm-up, calls running or not: a first call that
 * waits for an operator (a create's approval) must not leave the index behind the files that long.
 */
const FIRST_RECONCILE_LATEST_MS = 10_000;

type StartOptions = WarmOptions & { firstReconcileAfter: Promise<unknown> };

async function ownWatcher(root: string, opts: StartOptions): Promise<WarmState> {
  const { Gate } = await import('../serve/gate.js');
  const { resolveEmbedder } = await import('../embedding/root-embedder.js');
  const { startWatch } = await import('../watch.js');
  const { embedder } = await resolveEmbedder(root, { flag: opts.embedderFlag });
  const gate = new Gate();
  let watching = true;
  const watcher = await startWatch(root, {
    reconcileSeconds: opts.reconcileSeconds ?? 300,
    embedder,
    exclusive: (fn) => gate.run(fn),
    firstReconcileAfter: opts.firstReconcileAfter,
    onEvent: (e) => {
      if (e.type === 'error') {
        const code = (e.error as NodeJS.ErrnoException | null)?.code;
        if (code === 'ENOSPC' || code === 'EMFILE') watching = false;
        opts.log?.(`watch error: ${String((e.error as Error)?.message ?? e.error)}`);
      }
    },
  });
  return {
    embedder,
    mode: 'watch',
    socket: null,
    watching: () => watching,
    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      await watcher.flush();
      return gate.run(fn);
    },
    lag: (topics) => watcher.lag(topics),
    close: () => watcher.close(),
  };
}

async function start(root: string, opts: StartOptions): Promise<WarmState> {
  if (opts.serveSocket !== false) {
    const { startServer } = await import('../serve/server.js');
    try {
      const s = await startServer(root, {
        embedderFlag: opts.embedderFlag,
        reconcileSeconds: opts.reconcileSeconds,
        firstReconcileAfter: opts.firstReconcileAfter,
        onEvent: (e) => {
          if (e.type === 'error' || e.type === 'watch-degraded') opts.log?.(`serve: ${JSON.stringify(e.type === 'error' ? String((e.error as Error)?.message ?? e.error) : e.reason)}`);
        },
      });
      opts.log?.(`warm: serving ${root} on ${s.socket} too`);
      return { embedder: s.embedder, mode: 'socket', socket: s.socket, watching: s.watching, exclusive: (fn) => s.exclusive(fn), lag: (topics) => s.lag(topics), close: () => s.close() };
    } catch (err) {
      if (!(err instanceof TkomaError && (err.code === 'LOCKED' || err.code === 'INVALID_PATH'))) throw err;
      opts.log?.(`warm: another process serves the socket (${err.message}); watching on our own`);
    }
  }
  return ownWatcher(root, opts);
}

/**
 * Warming is deferred until kick() (after the MCP handshake) or the first call that needs it, so
 * loading the model and the indexes never competes with the start-up the host waits for.
 */
export function startWarm(root: string, opts: WarmOptions = {}): Warm {
  let started: Promise<WarmState> | null = null;
  let closed = false;
  const idle = (): void => {
    if (!opts.onIdle || closed || !started) return;
    void started.then((w) => opts.onIdle?.(w)).catch(() => undefined);
  };
  // The first reconcile waits until a call has been answered (or the grace ran out) and none is
  // running: a ghost's first search is not made to share the thread with a walk of every file.
  let calls = 0;
  let mayReconcile = false;
  let release!: () => void;
  const firstReconcileAfter = new Promise<void>((r) => (release = r));
  const maybeRelease = (): void => {
    if (mayReconcile && calls === 0) release();
  };
  const ensure = (): Promise<WarmState> => {
    if (!started) {
      started = start(root, { ...opts, firstReconcileAfter });
      void started.then(
        () => {
          setTimeout(() => {
            mayReconcile = true;
            maybeRelease();
          }, FIRST_CALL_GRACE_MS).unref();
          setTimeout(release, FIRST_RECONCILE_LATEST_MS).unref();
        },
        () => undefined,
      );
      // A failed warm-up is reported on every call that needs it, never as an unhandled rejection.
      started.catch((err: unknown) => opts.log?.(`warm-up failed: ${err instanceof Error ? err.message : String(err)}`));
      idle();
    }
    return started;
  };
  return {
    get ready() {
      return ensure();
    },
    kick: () => void ensure(),
    async exclusive<T>(fn: (w: WarmState) => Promise<T>): Promise<T> {
      const w = await ensure();
      return w.exclusive(() => fn(w));
    },
    touched: idle,
    callStarted: () => void calls++,
    callEnded(): void {
      calls--;
      mayReconcile = true;
      maybeRelease();
    },
    async close(): Promise<void> {
      closed = true;
      release();
      if (!started) return;
      const w = await started.catch(() => null);
      await w?.close();
    },
  };
}
