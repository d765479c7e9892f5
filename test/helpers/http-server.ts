/** A real HTTP server on 127.0.0.1 (port 0) with per-path handlers, for web source tests. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { parseAllowList, type SourcePolicy } from '../../src/lib/net/policy.js';

/** The policy of a root whose tkoma-ref.toml says `[network] allow = ["127.0.0.1"]`: what these servers need. */
export const LOCAL_POLICY: SourcePolicy = { allow: parseAllowList(['127.0.0.1']), localRoots: [] };

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestServer {
  base: string; // http://127.0.0.1:PORT
  url(path: string): string;
  route(path: string, handler: Handler): void;
  /** Requests seen, as "METHOD path". */
  seen: string[];
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  const routes = new Map<string, Handler>();
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push(`${req.method} ${path}`);
    const handler = routes.get(path);
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    url: (path) => base + path,
    route: (path, handler) => void routes.set(path, handler),
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        // Handlers that never answer keep sockets open: drop them so close() returns.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler that answers with a fixed body and content type. */
export function send(body: string | Buffer, contentType: string, status = 200): Handler {
  return (_req, res) => {
    const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    res.writeHead(status, { 'content-type': contentType, 'content-length': buf.byteLength });
    res.end(buf);
  };
}

/** A port that nothing listens on (a server is opened and closed to find one). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
