/**
 * `tkoma-ref mcp --http PORT`: Streamable HTTP at http://127.0.0.1:PORT/mcp, one MCP session per
 * client over the shared warm state. Loopback only, and against DNS rebinding (a web page whose
 * host name resolves to 127.0.0.1) every request must name this server in `Host`, and a browser's
 * `Origin`, when present, must be this server too.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import { TkomaError } from '../errors.js';
import { envSetting } from '../settings.js';
import { createShared, type McpOptions } from './server.js';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Sessions open at once (TKOMA_REF_MCP_SESSIONS): each holds an McpServer and its transport. */
const DEFAULT_MAX_SESSIONS = 64;
/** A session unused this long is closed (TKOMA_REF_MCP_SESSION_IDLE): clients often never DELETE. */
const DEFAULT_SESSION_IDLE_SECONDS = 30 * 60;

interface SessionUse {
  /** Requests (and streams) of the session still open: a session in use never expires. */
  open: number;
  lastSeen: number;
}

/** Sessions idle past `idleMs` at `now`: none of their requests or streams open. Pure. */
export function expiredSessions(uses: ReadonlyMap<string, SessionUse>, now: number, idleMs: number): string[] {
  return [...uses].filter(([, u]) => u.open === 0 && now - u.lastSeen >= idleMs).map(([id]) => id);
}

/** Host header values that name this server (DNS rebinding: anything else is refused). Pure. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** Origins a browser may send (absent is fine: not a browser). Pure. */
export function allowedOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** Why a request is refused before it reaches MCP, or null. Pure. */
export function refusal(headers: IncomingMessage['headers'], port: number): string | null {
  const host = (headers.host ?? '').toLowerCase();
  if (!allowedHosts(port).includes(host)) return `Host "${host}" is not this server`;
  const origin = headers.origin;
  if (origin !== undefined && !allowedOrigins(port).includes(origin.toLowerCase())) return `Origin "${origin}" is not allowed`;
  return null;
}

function jsonError(res: ServerResponse, status: number, message: string, id: string | number | null = null, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    parts.push(chunk as Buffer);
  }
  const text = Buffer.concat(parts).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/**
 * Serves MCP over Streamable HTTP on 127.0.0.1:`port` until stopped.
 * @public loaded with import() by src/cli/mcp.ts, which static analysis does not follow.
 */
export async function runHttp(opts: McpOptions, port: number, untilStopped: Promise<void>): Promise<void> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const shared = createShared(opts);
  const log = shared.ctx.log;
  type Transport = InstanceType<typeof StreamableHTTPServerTransport>;
  const transports = new Map<string, Transport>();
  const uses = new Map<string, SessionUse>();
  const maxSessions = envSetting('mcpSessions') ?? DEFAULT_MAX_SESSIONS;
  const idleMs = (envSetting('mcpSessionIdle') ?? DEFAULT_SESSION_IDLE_SECONDS) * 1000;
  const sweep = setInterval(
    () => {
      for (const id of expiredSessions(uses, Date.now(), idleMs)) {
        const t = transports.get(id);
        uses.delete(id);
        transports.delete(id);
        log(`http: session ${id} idle for ${Math.round(idleMs / 1000)} s: closed`);
        void t?.close().catch(() => undefined);
      }
    },
    Math.min(60_000, Math.max(250, idleMs / 4)),
  );
  sweep.unref();

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const refused = refusal(req.headers, port);
      if (refused) return jsonError(res, 403, `Forbidden: ${refused}`);
      if (url.pathname !== '/mcp') return jsonError(res, 404, 'Not found: the MCP endpoint is /mcp');
      let body: unknown;
      if (req.method === 'POST') {
        try {
          body = await readBody(req);
        } catch (err) {
          return jsonError(res, 400, `Parse error: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport) {
        if (sid !== undefined) return jsonError(res, 404, 'Unknown session: initialize again');
        if (req.method !== 'POST' || !isInitializeRequest(body)) return jsonError(res, 400, 'Bad request: no session (send initialize first)');
        if (transports.size >= maxSessions) {
          const retry = Math.min(60, Math.ceil(idleMs / 1000));
          log(`http: refused a new session: ${transports.size} are open (the cap is ${maxSessions})`);
          return jsonError(
            res,
            503,
            `Too many sessions: ${transports.size} are open, the most this server keeps (${maxSessions}). Close one (DELETE /mcp with its mcp-session-id) or retry once idle ones expire (after ${Math.round(idleMs / 1000)} s unused).`,
            (body as { id?: string | number }).id ?? null,
            { 'retry-after': String(retry) },
          );
        }
        const t: Transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            transports.set(id, t);
            uses.set(id, { open: 0, lastSeen: Date.now() });
          },
          enableDnsRebindingProtection: true,
          allowedHosts: allowedHosts(port),
          allowedOrigins: allowedOrigins(port),
        });
        t.onclose = () => {
          if (t.sessionId) {
            transports.delete(t.sessionId);
            uses.delete(t.sessionId);
          }
        };
        await shared.newSession().connect(t);
        transport = t;
      }
      const use = typeof sid === 'string' ? uses.get(sid) : undefined;
      if (use) {
        use.open++;
        use.lastSeen = Date.now();
        res.once('close', () => {
          use.open--;
          use.lastSeen = Date.now();
        });
      }
      await transport.handleRequest(req, res, body);
    })().catch((err: unknown) => {
      log(`http: ${err instanceof Error ? err.message : String(err)}`);
      jsonError(res, 500, 'Internal error');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new TkomaError('LOCKED', `port ${port} on 127.0.0.1 is in use`, { port }) : err),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  log(`serving MCP over Streamable HTTP at http://127.0.0.1:${port}/mcp (Ctrl-C to stop)`);
  await untilStopped;
  clearInterval(sweep);
  for (const t of transports.values()) await t.close().catch(() => undefined);
  await new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
  await shared.close();
}
