/**
 * The serve process as a library: a real unix socket, real topics and indexes, a real embedder
 * (an Ollama-protocol server on 127.0.0.1), answers compared with the in-process functions.
 */
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { forgetTopicIndex, syncIndex } from '../../src/lib/index/service.js';
import { searchReferences, searchTopics } from '../../src/lib/search/search.js';
import { tryServer as tryServerRaw } from '../../src/lib/serve/client.js';
import { serveInfoFile } from '../../src/lib/serve/protocol.js';
import { type RunningServer, type ServeEvent, startServer } from '../../src/lib/serve/server.js';
import { BAKERY, type EmbedServer, makeTmpRoot, WIDGETRY, startEmbedServer, writeTopic, writeTopicMd } from '../helpers/index-topics.js';
import { Events, ping, rawExchange } from '../helpers/serve.js';

/** The client with a connect timeout that a loaded test machine cannot trip. */
const tryServer: typeof tryServerRaw = (r, op, args, opts = {}) => tryServerRaw(r, op, args, { timeoutMs: 120_000, ...opts });


let embed: EmbedServer;
let root: string;
let cleanup: () => void;
let server: RunningServer;
const events = new Events<ServeEvent>();
const savedEnv = { url: process.env.TKOMA_REF_EMBED_URL, model: process.env.TKOMA_REF_EMBED_MODEL };
const FLAG = 'ollama';

/** Same request both ways; the two JSON documents must be the same bytes. */
async function both(op: 'search' | 'topic_search', args: Record<string, unknown>): Promise<{ served: unknown; local: unknown }> {
  const served = await tryServer(root, op, { ...args, embedderFlag: FLAG });
  const local =
    op === 'search'
      ? await searchReferences(root, { ...(args as { question: string }), embedderFlag: FLAG })
      : await searchTopics(root, args.query as string, { limit: args.limit as number, includeObsolete: args.includeObsolete as boolean, embedderFlag: FLAG });
  return { served, local };
}

async function errorOf(p: Promise<unknown>): Promise<TkomaError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TkomaError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

beforeAll(async () => {
  embed = await startEmbedServer(64);
  process.env.TKOMA_REF_EMBED_URL = embed.url;
  process.env.TKOMA_REF_EMBED_MODEL = 'bow-test';
  ({ root, cleanup } = makeTmpRoot());
  await writeTopic(root, WIDGETRY);
  await writeTopic(root, BAKERY);
  // Vectors are built by the background builder (off in tests): build them here.
  const { createOllamaEmbedder } = await import('../../src/lib/embedding/ollama.js');
  await syncIndex(root, { embedder: await createOllamaEmbedder({ provider: 'ollama', url: embed.url, model: 'bow-test' }) });
  server = await startServer(root, { embedderFlag: FLAG, reconcileSeconds: 3600, onEvent: events.push });
  await events.wait((e) => e.type === 'reconcile', true);
});

afterAll(async () => {
  await server?.close();
  await embed.close();
  forgetTopicIndex(root);
  cleanup();
  if (savedEnv.url === undefined) delete process.env.TKOMA_REF_EMBED_URL;
  else process.env.TKOMA_REF_EMBED_URL = savedEnv.url;
  if (savedEnv.model === undefined) delete process.env.TKOMA_REF_EMBED_MODEL;
  else process.env.TKOMA_REF_EMBED_MODEL = savedEnv.model;
});

describe('startServer', () => {
  it('records itself in serve.json and listens on a socket only this user can use', async () => {
    const info = JSON.parse(readFileSync(serveInfoFile(root), 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, socket: join(root, '.tkoma', 'serve.sock'), protocol: 1, root });
    expect(statSync(info.socket).isSocket()).toBe(true);
    expect(statSync(info.socket).mode & 0o777).toBe(0o600);
    expect(server.embedder?.key).toContain('bow-test');
    expect((await ping(server.socket)).watching).toBe(true);
  });

  it('answers reference searches with exactly the in-process JSON', async () => {
    const before = (await ping(server.socket)).answered.search ?? 0;
    const requests = [
      { question: 'resize grid cells', topic: 'topic-widgetry' },
      { question: 'crust', all: true, limit: 3 },
      { question: 'draw a border around the widget', topic: 'widgetry', explain: true, maxChars: 80 },
      { question: 'feed the starter with flour' },
      { question: 'parseConfig', topic: 'topic-widgetry', mode: 'lexical' },
      { question: 'scrolling lists', topic: 'topic-widgetry', mode: 'vector', limit: 2 },
    ];
    for (const req of requests) {
      const { served, local } = await both('search', req);
      expect(served, JSON.stringify(req)).toBeDefined();
      expect(JSON.stringify(served)).toBe(JSON.stringify(local));
    }
    const first = (await tryServer(root, 'search', { ...requests[0], embedderFlag: FLAG })) as { vector_search: { available: boolean }; results: unknown[] };
    expect(first.vector_search.available).toBe(true);
    expect(first.results.length).toBeGreaterThan(0);
    expect((await ping(server.socket)).answered.search).toBe(before + requests.length + 1);
  });

  it('answers topic searches with exactly the in-process JSON', async () => {
    for (const req of [{ query: 'terminal widgets' }, { query: 'bread', limit: 1 }, { query: 'baking', includeObsolete: true }]) {
      const { served, local } = await both('topic_search', req);
      expect(served, JSON.stringify(req)).toBeDefined();
      expect(JSON.stringify(served)).toBe(JSON.stringify(local));
    }
  });

  it('answers errors with the same code, message and details', async () => {
    const cases = [
      { question: 'x', topic: 'topic-nope' },
      { question: 'x', limit: 0 },
      { question: 'x', mode: 'fuzzy' },
      { question: '   ' },
    ];
    for (const req of cases) {
      const served = await errorOf(tryServer(root, 'search', { ...req, embedderFlag: FLAG }));
      const local = await errorOf(searchReferences(root, { ...(req as { question: string }), embedderFlag: FLAG }));
      expect(served.toJSON(), JSON.stringify(req)).toEqual(local.toJSON());
    }
    const served = await errorOf(tryServer(root, 'topic_search', { query: '', embedderFlag: FLAG }));
    expect(served.code).toBe('INVALID_INPUT');
  });

  it('leaves requests for another embedder to the client (undefined), except lexical mode', async () => {
    expect(await tryServer(root, 'search', { question: 'grid', topic: 'topic-widgetry', embedderFlag: 'none' })).toBeUndefined();
    const otherUrl = { ...process.env, TKOMA_REF_EMBED_URL: 'http://127.0.0.1:9' };
    expect(await tryServer(root, 'search', { question: 'grid', embedderFlag: FLAG }, { env: otherUrl })).toBeUndefined();
    expect(await tryServer(root, 'topic_search', { query: 'grid', embedderFlag: 'none' })).toBeUndefined();
    // A bad --embedder is reported by the in-process path, in its own order of checks.
    expect(await tryServer(root, 'search', { question: 'grid', embedderFlag: 'bogus' })).toBeUndefined();
    expect(await tryServer(root, 'search', { question: 'grid', topic: 'topic-widgetry', embedderFlag: 'none', mode: 'lexical' })).toBeDefined();
  });

  it("sees an edit of the root's config on the next request (whose embedder a client without a flag picks)", async () => {
    const file = join(root, 'tkoma-ref.toml');
    const env = { ...process.env };
    delete env.TKOMA_REF_EMBEDDER;
    const ask = () => tryServer(root, 'search', { question: 'grid', topic: 'topic-widgetry' }, { env });
    const withProvider = (p: string) => writeFileSync(file, `[embedding]\nprovider = "${p}"\n`);
    try {
      withProvider('ollama');
      expect(await ask()).toBeDefined();
      withProvider('none');
      expect(await ask()).toBeUndefined();
      withProvider('ollama');
      expect(await ask()).toBeDefined();
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('answers for the same folder reached through a symlink, and not for another root', async () => {
    const link = `${root}-link`;
    symlinkSync(root, link);
    try {
      expect(await tryServer(link, 'ping', {})).toMatchObject({ pid: process.pid }); // the link shares .tkoma/serve.json
      const [viaLink] = (await rawExchange(server.socket, [`${JSON.stringify({ id: 7, op: 'ping', root: link })}\n`], 1)) as { ok: boolean }[];
      expect(viaLink!.ok).toBe(true);
      const [other] = (await rawExchange(server.socket, [`${JSON.stringify({ id: 8, op: 'ping', root: '/' })}\n`], 1)) as { fallback?: string }[];
      expect(other!.fallback).toMatch(/another root/);
    } finally {
      rmSync(link, { force: true });
    }
  });

  it('reflects a hand edit once the watcher has heard of it, without waiting for the debounce', async () => {
    const file = join(root, 'references', 'topic-widgetry', 'docs', 'gearbox.md');
    const heard = events.wait((e) => e.type === 'file' && e.path === file);
    writeFileSync(file, '# Gearbox\n\nThe planetary gearbox multiplies torque.\n');
    await heard;
    const res = (await tryServer(root, 'search', { question: 'planetary gearbox torque', topic: 'topic-widgetry', embedderFlag: FLAG })) as { results: { path: string }[] };
    expect(res.results[0]?.path).toBe('docs/gearbox.md');
  });

  it('reflects a file marked obsolete in topic.md on the very next request', async () => {
    const q = { question: 'Installation cargo add widgetry color feature', topic: 'topic-widgetry', embedderFlag: FLAG };
    const before = (await tryServer(root, 'search', q)) as { results: { path: string }[] };
    expect(before.results.map((h) => h.path)).toContain('README.md');
    writeTopicMd(root, { ...WIDGETRY, file_status: [{ path: 'README.md', status: 'obsolete', reason: 'old', updated_at: '2025-06-16T00:00:00Z' }] });
    const after = (await tryServer(root, 'search', q)) as { results: { path: string }[] };
    expect(after.results.map((h) => h.path)).not.toContain('README.md');
    writeTopicMd(root, WIDGETRY);
  });

  it('sees topics created and deleted by other processes', async () => {
    await writeTopic(root, { id: 'topic-kites', title: 'Kites', body: '# Kites\n\nFlying kites.', files: { 'lines.md': '# Lines\n\nDyneema kite lines stretch little.\n' } });
    await syncIndex(root, { topicIds: ['topic-kites'], embedder: null }); // what `topic create` does in its own process
    const found = (await tryServer(root, 'search', { question: 'dyneema', topic: 'topic-kites', embedderFlag: FLAG })) as { results: { path: string }[] };
    expect(found.results[0]?.path).toBe('lines.md');
    rmSync(join(root, 'references', 'topic-kites'), { recursive: true, force: true });
    const gone = await errorOf(tryServer(root, 'search', { question: 'dyneema', topic: 'topic-kites', embedderFlag: FLAG }));
    expect(gone.code).toBe('TOPIC_NOT_FOUND');
  });

  it('answers a garbled line with an error and keeps the connection usable', async () => {
    const answers = (await rawExchange(server.socket, ['this is not json\n', `${JSON.stringify({ id: 3, op: 'nope' })}\n`, `${JSON.stringify({ id: 4, op: 'ping' })}\n`], 3)) as {
      id: unknown;
      ok: boolean;
      error?: { code: string };
    }[];
    expect(answers[0]).toMatchObject({ ok: false, error: { code: 'INVALID_JSON' } });
    expect(answers[1]).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(answers[2]).toMatchObject({ id: 4, ok: true });
  });

  it('refuses to start a second server for the same root', async () => {
    await expect(startServer(root, { embedderFlag: 'none', watch: false })).rejects.toMatchObject({ code: 'LOCKED' });
    expect(JSON.parse(readFileSync(serveInfoFile(root), 'utf8')).socket).toBe(server.socket);
  });
});

describe('a server without a watcher', () => {
  it('re-checks the files by stat before every answer', async () => {
    const { root: r, cleanup: clean } = makeTmpRoot();
    let s: RunningServer | undefined;
    try {
      await writeTopic(r, BAKERY);
      s = await startServer(r, { embedderFlag: 'none', watch: false });
      const q = { question: 'baguette scoring lame', topic: 'topic-bakery', embedderFlag: 'none' };
      expect(((await tryServer(r, 'search', q)) as { results: unknown[] }).results).toEqual([]);
      mkdirSync(join(r, 'references', 'topic-bakery', 'shaping'), { recursive: true });
      writeFileSync(join(r, 'references', 'topic-bakery', 'shaping', 'baguette.md'), '# Baguette\n\nScore the baguette with a lame.\n');
      const res = (await tryServer(r, 'search', q)) as { results: { path: string }[] };
      expect(res.results[0]?.path).toBe('shaping/baguette.md');
      expect((await ping(s.socket)).watching).toBe(false);
    } finally {
      await s?.close();
      forgetTopicIndex(r);
      clean();
    }
  });
});
