/**
 * A real HTTP server on 127.0.0.1 that speaks the Ollama /api/embed and OpenAI /v1/embeddings
 * protocols, with deterministic, deliberately unnormalised vectors derived from each input text.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: { model?: string; input?: string[] } & Record<string, unknown>;
}

/** A test can take over a request by returning true after writing its own answer. */
export type Override = (req: Recorded, res: ServerResponse, count: number) => boolean;

/** Same text → same vector; length 3× larger than unit so normalisation is visible. */
export function fakeVector(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (let i = 0; i < text.length; i++) v[(text.charCodeAt(i) * 31 + i) % dim] += 1 + (i % 3);
  v[0] += 1; // never all-zero
  return v.map((x) => x * 3);
}

export interface FakeServer {
  url: string;
  requests: Recorded[];
  dim: number;
  override?: Override;
  close(): Promise<void>;
}

export async function startFakeServer(dim = 8): Promise<FakeServer> {
  const state: FakeServer = {
    url: '',
    requests: [],
    dim,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Recorded['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Recorded['body'];
      } catch {
        // left empty: the handler answers 400 below
      }
      const rec: Recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      state.requests.push(rec);
      if (state.override?.(rec, res, state.requests.length)) return;
      const inputs = Array.isArray(body.input) ? body.input : undefined;
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (!inputs || typeof body.model !== 'string') return send(400, { error: 'model and input are required' });
      if (rec.method === 'POST' && rec.path === '/api/embed') {
        return send(200, { model: body.model, embeddings: inputs.map((t) => fakeVector(t, state.dim)) });
      }
      if (rec.method === 'POST' && rec.path === '/v1/embeddings') {
        // Answer in reverse order: clients must sort by index.
        const data = inputs.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t, state.dim) }));
        return send(200, { object: 'list', model: body.model, data: data.reverse(), usage: { total_tokens: 1 } });
      }
      send(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
