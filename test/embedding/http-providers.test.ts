import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { createEmbedder } from '../../src/lib/embedding/index.js';
import { createOllamaEmbedder } from '../../src/lib/embedding/ollama.js';
import { createOpenAIEmbedder } from '../../src/lib/embedding/openai.js';
import { TkomaError } from '../../src/lib/errors.js';
import { fakeVector, startFakeServer, type FakeServer } from '../helpers/fake-embed-servers.js';
import { cosine, norm } from '../helpers/tmp.js';

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer(8);
});
afterEach(async () => {
  await server.close();
});

const FAST = { retries: 0, timeoutMs: 60_000 }; // no retries; the limit only nets a hang on a busy machine

async function expectUnavailable(p: Promise<unknown>): Promise<TkomaError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError);
    expect((err as TkomaError).code).toBe('EMBEDDER_UNAVAILABLE');
    return err as TkomaError;
  }
  throw new Error('expected EMBEDDER_UNAVAILABLE');
}

/** A port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('ollama provider', () => {
  it('probes the dimension, then embeds in batches with the model and no auth header', async () => {
    const e = await createOllamaEmbedder({ provider: 'ollama', url: server.url, model: 'all-minilm' }, { ...FAST, batchSize: 3 });
    expect(e.dimension).toBe(8);
    expect(e.key).toBe('ollama:all-minilm:8');
    const texts = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'];
    const vs = await e.embedDocuments(texts);

    const sizes = server.requests.map((r) => r.body.input!.length);
    expect(sizes).toEqual([1, 3, 3, 1]); // probe, then 7 texts in batches of 3
    for (const r of server.requests) {
      expect(r.path).toBe('/api/embed');
      expect(r.body.model).toBe('all-minilm');
      expect(r.headers['content-type']).toContain('application/json');
      expect(r.headers.authorization).toBeUndefined();
    }
    expect(server.requests.slice(1).flatMap((r) => r.body.input)).toEqual(texts);
    vs.forEach((v, i) => {
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(cosine(v, fakeVector(texts[i]!, 8))).toBeCloseTo(1, 5);
    });
  });

  it('adds the model family prefixes (nomic)', async () => {
    const e = await createOllamaEmbedder({ provider: 'ollama', url: server.url }, FAST);
    expect(e.model).toBe('nomic-embed-text');
    await e.embedDocuments(['doc text']);
    await e.embedQuery('a question');
    const sent = server.requests.slice(1).map((r) => r.body.input![0]);
    expect(sent).toEqual(['search_document: doc text', 'search_query: a question']);
  });

  it('reports a missing model in the server words', async () => {
    server.override = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'model "nope" not found, try pulling it first' }));
      return true;
    };
    const err = await expectUnavailable(createOllamaEmbedder({ provider: 'ollama', url: server.url, model: 'nope' }, FAST));
    expect(err.message).toContain('HTTP 404');
    expect(err.message).toContain('try pulling it first');
    expect(err.details).toMatchObject({ provider: 'ollama', status: 404 });
  });

  it('hints at an old Ollama when /api/embed itself is missing', async () => {
    server.override = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found');
      return true;
    };
    const err = await expectUnavailable(createOllamaEmbedder({ provider: 'ollama', url: server.url }, FAST));
    expect(err.message).toContain('/api/embed');
  });

  it('an unreachable server is EMBEDDER_UNAVAILABLE through createEmbedder', async () => {
    const port = await closedPort();
    const err = await expectUnavailable(
      createEmbedder({ provider: 'ollama', url: `http://127.0.0.1:${port}` }, { http: FAST }),
    );
    expect(err.message).toMatch(/unreachable \(ECONNREFUSED\)/);
  });

  it('a server that never answers times out', async () => {
    server.override = () => true; // hold the request open
    const err = await expectUnavailable(
      createOllamaEmbedder({ provider: 'ollama', url: server.url }, { retries: 0, timeoutMs: 200 }),
    );
    expect(err.message).toMatch(/did not answer/);
    expect(err.details.reason).toBe('timeout');
  });

  it('retries an overloaded server, then succeeds', async () => {
    server.override = (_req, res, count) => {
      if (count > 1) return false;
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":"busy"}');
      return true;
    };
    const e = await createOllamaEmbedder({ provider: 'ollama', url: server.url }, { retries: 1, retryBaseMs: 1 });
    expect(e.dimension).toBe(8);
    expect(server.requests).toHaveLength(2);
  });

  it('rejects answers with the wrong number of vectors', async () => {
    server.override = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ embeddings: [...req.body.input!, 'extra'].map(() => [1, 2]) }));
      return true;
    };
    const err = await expectUnavailable(createOllamaEmbedder({ provider: 'ollama', url: server.url }, FAST));
    expect(err.message).toMatch(/malformed answer: 2 embeddings for 1 inputs/);
  });
});

describe('openai provider', () => {
  const settings = () => ({ provider: 'openai' as const, url: `${server.url}/v1`, model: 'text-embedding-3-small', apiKey: 'sk-test-123' });

  it('sends the bearer key, batches, and orders results by index', async () => {
    const e = await createOpenAIEmbedder(settings(), { ...FAST, batchSize: 2 });
    expect(e.key).toBe('openai:text-embedding-3-small:8');
    const texts = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const vs = await e.embedDocuments(texts);
    expect(server.requests.map((r) => r.body.input!.length)).toEqual([1, 2, 2, 1]);
    for (const r of server.requests) {
      expect(r.path).toBe('/v1/embeddings');
      expect(r.headers.authorization).toBe('Bearer sk-test-123');
      expect(r.body.model).toBe('text-embedding-3-small');
      expect(r.body.encoding_format).toBe('float');
    }
    // The server answers in reverse order; vectors must still line up with their texts.
    vs.forEach((v, i) => {
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(cosine(v, fakeVector(texts[i]!, 8))).toBeCloseTo(1, 5);
    });
  });

  it('works without a key against a local compatible server', async () => {
    const e = await createOpenAIEmbedder({ provider: 'openai', url: `${server.url}/v1/`, model: 'nomic-embed-text' }, FAST);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    await e.embedQuery('q');
    expect(server.requests[1]!.body.input).toEqual(['search_query: q']);
  });

  it('refuses the real OpenAI endpoint without a key, before any request', async () => {
    const err = await expectUnavailable(createEmbedder({ provider: 'openai' }, { http: FAST }));
    expect(err.message).toMatch(/OPENAI_API_KEY/);
  });

  it('reports an auth failure without leaking the key', async () => {
    server.override = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      return true;
    };
    const err = await expectUnavailable(createOpenAIEmbedder(settings(), FAST));
    expect(err.message).toContain('HTTP 401: Incorrect API key provided');
    expect(JSON.stringify(err.toJSON())).not.toContain('sk-test-123');
  });

  it('a 500 after the retries are spent is EMBEDDER_UNAVAILABLE with the status', async () => {
    server.override = (_req, res) => {
      res.writeHead(500);
      res.end('internal failure');
      return true;
    };
    const err = await expectUnavailable(createOpenAIEmbedder(settings(), { retries: 2, retryBaseMs: 1 }));
    expect(err.details.status).toBe(500);
    expect(err.message).toContain('internal failure');
    expect(server.requests).toHaveLength(3);
  });

  it('rejects an answer that is not JSON', async () => {
    server.override = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy login</html>');
      return true;
    };
    const err = await expectUnavailable(createOpenAIEmbedder(settings(), FAST));
    expect(err.message).toMatch(/not JSON/);
  });

  it('detects a server whose dimension changes under it', async () => {
    const e = await createOpenAIEmbedder(settings(), FAST);
    server.dim = 16;
    const err = await expectUnavailable(e.embedDocuments(['x']));
    expect(err.message).toMatch(/changed dimension from 8 to 16/);
  });
});
