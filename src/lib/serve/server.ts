/**
 * The serve process: keeps the embedder and the topics' indexes in memory and answers search
 * requests from the CLI over a unix socket (newline-delimited JSON, one answer per request).
 *
 * Freshness: by default a folder watcher (lib/watch.ts) syncs the index when reference files
 * change, and every answer first runs the syncs of events already received; what other
 * processes write (topic create/refresh/delete, file status) is seen through the stat of
 * topic.md, head.json and the manifest on every query. Without a watcher (watch: false, or
 * when the OS runs out of watches) each answer does the same stat walk as an in-process search.
 *
 * Only the local user: the socket is created with mode 0600, and clients check its owner.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';

import type { Embedder } from '../embedding/types.js';
import { TkomaError } from '../errors.js';
import { pidAlive } from '../process.js';
import type { IndexLag, Watcher, WatchEvent } from '../watch.js';
import { Gate, GateBusy } from './gate.js';
import { handleRequest, type HandlerContext, parseRequest } from './handlers.js';
import { buildId, isServeInfo, lineSplitter, packageVersion, PROTOCOL, type Request, type Response, type ServeInfo, serveInfoFile, socketPathFor } from './protocol.js';

export type ServeEvent =
  | WatchEvent
  | { type: 'serving'; socket: string; pid: number; watching: boolean; embedder: string | null }
  | { type: 'watch-degraded'; reason: string };

export interface ServerOptions {
  /** --embedder: the server loads this model once; clients asking for another fall back. */
  embedderFlag?: string;
  /** Keep the index in step with a file watcher (default true); false = stat walk per query. */
  watch?: boolean;
  /** Full reconcile interval of the watcher, seconds (default 300). */
  reconcileSeconds?: number;
  onEvent?: (e: ServeEvent) => void;
  /** Where to listen (default: socketPathFor(root)). */
  socketPath?: string;
  /** Load the indexes of up to this many topics at start, so the first query is warm (default 8). */
  preloadTopics?: number;
  /** Longest an answer waits for a running sync before the client is told to work alone (ms). */
  busyWaitMs?: number;
  /** See WatchOptions.firstReconcileAfter (the MCP server's first answer goes first). */
  firstReconcileAfter?: Promise<unknown>;
}

export interface RunningServer {
  socket: string;
  info: ServeInfo;
  /** The embedder answers use (null: lexical only). */
  embedder: Embedder | null;
  /** True while the watcher keeps the index in step with the files (no per-query stat walk). */
  watching(): boolean;
  /**
   * Runs `fn` as an answer runs: after the syncs of events already received, alone with respect
   * to every other answer and watcher sync (the MCP server's tools share the gate this way).
   * Never call it from inside another `exclusive` callback.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** How far the index is behind the files of these topics (watch.ts); null: in step or no watcher. */
  lag(topics?: readonly string[]): IndexLag | null;
  close(): Promise<void>;
}

const DEFAULT_BUSY_WAIT_MS = 2000;
const IDLE_CONNECTION_MS = 60_000;

/** Whether something accepts connections at `path` (a live server). */
function answers(path: string, timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ path });
    const done = (v: boolean): void => {
      clearTimeout(timer);
      s.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** Refuses to start next to a live server; removes what a dead one left at our socket path. */
async function claimSocketPath(root: string, socketPath: string): Promise<void> {
  const infoFile = serveInfoFile(root);
  try {
    const info: unknown = JSON.parse(readFileSync(infoFile, 'utf8'));
    if (isServeInfo(info) && info.pid !== process.pid && pidAlive(info.pid) && (await answers(info.socket))) {
      throw new TkomaError('LOCKED', `a tkoma-ref server (pid ${info.pid}) already answers for ${root}`, { pid: info.pid, socket: info.socket });
    }
  } catch (err) {
    if (err instanceof TkomaError) throw err;
  }
  let st;
  try {
    st = lstatSync(socketPath);
  } catch {
    return;
  }
  const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
  if (!st.isSocket() || !mine) {
    throw new TkomaError('INVALID_PATH', `cannot listen at ${socketPath}: something else is there`, { path: socketPath });
  }
  if (await answers(socketPath)) {
    throw new TkomaError('LOCKED', `a tkoma-ref server already listens at ${socketPath}`, { socket: socketPath });
  }
  rmSync(socketPath, { force: true });
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // The socket file is created by bind() inside listen(): a tight umask makes it 0600 from the
    // first instant (the chmod after is for platforms that ignore umask on sockets).
    const previous = process.umask(0o177);
    try {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
}

function writeInfo(file: string, info: ServeInfo): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-0`;
  writeFileSync(tmp, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

/** Removes serve.json only if it is still ours (a successor may have written its own). */
function removeInfo(file: string, info: ServeInfo): void {
  try {
    const now: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (isServeInfo(now) && now.pid === info.pid && now.socket === info.socket) rmSync(file, { force: true });
  } catch {
    // gone already
  }
}

const isWatchLimit = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EMFILE';
};

/**
 * Loads (and keeps in memory) the indexes of up to `max` live topics, as a search opens them: the
 * head, the records, and each lexical file with its postings left on disk (read per query term).
 * Only a topic whose index is missing, damaged or of an older format goes through a verifying
 * sync (rebuilt once and saved, not again by every query). A verifying sync of every topic walked
 * every file and read every posting: at 300k chunks that was most of the first call's wait and
 * ~1 GB held; the watcher's first reconcile already compares the files, in the background.
 */
async function preload(root: string, max: number): Promise<void> {
  if (max <= 0) return;
  const { loadAllTopics } = await import('../store/topic-files.js');
  const { syncIndex, loadHeadForReading, loadTopicIndex } = await import('../index/service.js');
  const { topics } = await loadAllTopics(root);
  const ids = topics.filter((x) => x.front.status !== 'obsolete').map((x) => x.front.id);
  for (const id of ids.slice(0, max)) {
    const head = await loadHeadForReading(root, id);
    const loaded = head ? await loadTopicIndex(root, id, head, { allPostings: false }) : null;
    if (loaded && loaded.repaired.length === 0) continue;
    try {
      await syncIndex(root, { topicIds: [id], embedder: null, verify: true, lockTimeoutMs: 2000 });
    } catch (err) {
      // Another process is writing this index: the first query loads it instead.
      if (!(err instanceof TkomaError && err.code === 'LOCKED')) throw err;
    }
  }
}

export async function startServer(root: string, opts: ServerOptions = {}): Promise<RunningServer> {
  const realRoot = realpathSync(root);
  const socketPath = opts.socketPath ?? socketPathFor(root);
  const infoFile = serveInfoFile(root);
  const emit = (e: ServeEvent): void => {
    try {
      opts.onEvent?.(e);
    } catch {
      // A listener's failure must not stop the server.
    }
  };
  mkdirSync(dirname(infoFile), { recursive: true });
  await claimSocketPath(root, socketPath);

  const { resolveEmbedder } = await import('../embedding/root-embedder.js');
  const { embedder } = await resolveEmbedder(root, { flag: opts.embedderFlag });
  const gate = new Gate();
  const busyWaitMs = opts.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS;
  // Warm (and repair) the indexes before anyone can ask or the watcher starts: until the socket
  // exists clients work in-process, and the watcher's first reconcile reports every change made
  // after this, so a sync never goes unreported.
  await preload(root, opts.preloadTopics ?? 8);

  let watcher: Watcher | null = null;
  let watching = false;
  if (opts.watch !== false) {
    const { startWatch } = await import('../watch.js');
    watcher = await startWatch(root, {
      reconcileSeconds: opts.reconcileSeconds ?? 300,
      embedder,
      exclusive: (fn) => gate.run(fn),
      firstReconcileAfter: opts.firstReconcileAfter,
      onEvent: (e) => {
        if (e.type === 'error' && watching && isWatchLimit(e.error)) {
          // Events may now be missed: answer with a stat walk per query, as the CLI does.
          watching = false;
          emit({ type: 'watch-degraded', reason: String((e.error as Error).message ?? e.error) });
        }
        emit(e);
      },
    });
    watching = true;
  }

  // A watcher keeps the background vector builder going; without one the server does.
  const builder = watcher ? null : (await import('../vectors/background.js')).startVectorBuilder(root);
  const startedAt = new Date().toISOString();
  const info: ServeInfo = { pid: process.pid, socket: socketPath, started_at: startedAt, version: packageVersion(), build: buildId(), protocol: PROTOCOL, root };
  const counts = { ping: 0, search: 0, topic_search: 0, fallback: 0, error: 0 };
  const ctx: HandlerContext = {
    root,
    realRoot,
    embedderFlag: opts.embedderFlag,
    watching: () => watching,
    describe: () => ({ ...info, watching, embedder: embedder?.key ?? null, answered: { ...counts } }),
  };

  const answer = async (req: Request): Promise<Response> => {
    if (req.op === 'ping') return handleRequest(ctx, req);
    try {
      if (watcher) {
        // Events already received are synced before we answer; a long sync (embedding a big
        // change) is not waited for: the client then answers from what is on disk.
        let timer: NodeJS.Timeout | undefined;
        const waited = await Promise.race([
          watcher.flush().then(() => true),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(false), busyWaitMs))),
        ]);
        clearTimeout(timer);
        if (!waited) return { id: req.id, ok: false, fallback: 'the index is being updated' };
      }
      return await gate.run(() => handleRequest(ctx, req), busyWaitMs);
    } catch (err) {
      if (err instanceof GateBusy) return { id: req.id, ok: false, fallback: 'the index is being updated' };
      throw err;
    }
  };

  const connections = new Set<Socket>();
  const server = createServer((conn) => {
    connections.add(conn);
    conn.setTimeout(IDLE_CONNECTION_MS, () => conn.destroy());
    conn.on('close', () => connections.delete(conn));
    conn.on('error', () => conn.destroy());
    // One request at a time per connection, answers in order.
    let queue: Promise<void> = Promise.resolve();
    const reply = (res: Response, op?: Request['op']): void => {
      if (res.ok) counts[op ?? 'ping']++;
      else if ('fallback' in res) counts.fallback++;
      else counts.error++;
      if (!conn.destroyed) conn.write(JSON.stringify(res) + '\n');
    };
    const push = lineSplitter((line) => {
      queue = queue.then(async () => {
        let req: Request;
        try {
          req = parseRequest(JSON.parse(line));
        } catch (err) {
          const e = err instanceof TkomaError ? err : new TkomaError('INVALID_JSON', 'a request is one line of JSON');
          reply({ id: -1, ok: false, error: e.toJSON().error as { code: string; message: string } });
          return;
        }
        const res = await answer(req).catch((err: unknown) => ({
          id: req.id,
          ok: false as const,
          error: { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) },
        }));
        reply(res, req.op);
      });
    });
    conn.on('data', (chunk: Buffer) => {
      try {
        push(chunk);
      } catch {
        conn.destroy(); // a line past the size limit: not a client of ours
      }
    });
  });
  server.maxConnections = 256;

  try {
    await claimSocketPath(root, socketPath); // again: another server may have started while we loaded
    await listen(server, socketPath).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'EADDRINUSE' ? new TkomaError('LOCKED', `another server took ${socketPath} meanwhile`, { socket: socketPath }) : err;
    });
    chmodSync(socketPath, 0o600);
    writeInfo(infoFile, info);
  } catch (err) {
    server.close();
    await watcher?.close();
    throw err;
  }
  emit({ type: 'serving', socket: socketPath, pid: process.pid, watching, embedder: embedder?.key ?? null });

  let closing: Promise<void> | null = null;
  return {
    socket: socketPath,
    info,
    embedder,
    watching: () => watching,
    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      await watcher?.flush();
      return gate.run(fn);
    },
    lag: (topics) => watcher?.lag(topics) ?? null,
    close(): Promise<void> {
      closing ??= (async () => {
        removeInfo(infoFile, info);
        await new Promise<void>((r) => {
          server.close(() => r());
          for (const c of connections) c.destroy();
        });
        rmSync(socketPath, { force: true });
        builder?.close();
        await watcher?.close();
      })();
      return closing;
    },
  };
}
