import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { forgetEmbedders, parseRecordedKey, resolveEmbedder } from '../../src/lib/embedding/root-embedder.js';
import { forgetTopicIndex, loadHead, syncIndex } from '../../src/lib/index/service.js';
import { rebuildIndex } from '../../src/lib/vectors/rebuild.js';
import { searchReferences, searchTopics } from '../../src/lib/search/search.js';
import { readConfig, writeConfig } from '../../src/lib/store/config.js';
import { type EmbedServer, makeTmpRoot, SAMPLE_FILES, startEmbedServer, writeTopic } from '../helpers/index-topics.js';

let big: EmbedServer;
let small: EmbedServer;
beforeAll(async () => {
  big = await startEmbedServer(64);
  small = await startEmbedServer(24);
});
afterAll(async () => {
  await big.close();
  await small.close();
});

let root: string;
let cleanup: () => void;
beforeEach(async () => {
  ({ root, cleanup } = makeTmpRoot());
  big.texts.length = 0;
  small.texts.length = 0;
  forgetEmbedders();
  await writeTopic(root, { id: 'topic-widgetry', title: 'Widgetry', body: '# Widgetry\n\nTerminal widgets.', files: SAMPLE_FILES });
});
afterEach(() => {
  forgetTopicIndex(root);
  cleanup();
});

async function configure(provider: string, url?: string, model?: string, recorded?: string): Promise<void> {
  const config = await readConfig(root);
  config.embedding = { provider, ...(url ? { url } : {}), ...(model ? { model } : {}), ...(recorded ? { recorded } : {}) };
  await writeConfig(root, config);
}

describe('parseRecordedKey', () => {
  it('splits provider, model (which may hold colons) and dimension', () => {
    expect(parseRecordedKey('use-lite:universal-sentence-encoder-lite:512')).toEqual({
      provider: 'use-lite',
      model: 'universal-sentence-encoder-lite',
      dimension: 512,
    });
    expect(parseRecordedKey('ollama:nomic-embed-text:latest:768')).toEqual({ provider: 'ollama', model: 'nomic-embed-text:latest', dimension: 768 });
    expect(parseRecordedKey('none')).toBeNull();
    expect(parseRecordedKey('ollama:m:zero')).toBeNull();
  });
});

describe('resolveEmbedder', () => {
  it('never records: resolving is a read, whatever the config or flag names', async () => {
    await configure('ollama', big.url, 'bow-big');
    const first = await resolveEmbedder(root);
    expect(first.embedder?.key).toBe('ollama:bow-big:64');
    expect(first.recordedChanged).toBeUndefined();
    expect((await readConfig(root)).embedding.recorded).toBeUndefined();
  });

  it('auto uses exactly the recorded embedder', async () => {
    await configure('auto', big.url, undefined, 'ollama:bow-big:64');
    const r = await resolveEmbedder(root);
    expect(r.embedder?.key).toBe('ollama:bow-big:64');
    expect(r.recordedChanged).toBeUndefined();
  });

  it('a request for another embedder than the recorded one gets the recorded one and a warning', async () => {
    await configure('auto', big.url, undefined, 'ollama:bow-big:64');
    const r = await resolveEmbedder(root, { flag: 'openai' });
    expect(r.embedder?.key).toBe('ollama:bow-big:64');
    expect(r.warning).toMatch(/openai.*records ollama:bow-big:64.*index embedder set/);
    expect((await readConfig(root)).embedding.recorded).toBe('ollama:bow-big:64');
  });

  it('answers lexically with a reason when the recorded embedder is unavailable', async () => {
    const dead = await startEmbedServer(8);
    await dead.close();
    await configure('auto', dead.url, undefined, 'ollama:gone:8');
    const r = await resolveEmbedder(root);
    expect(r.embedder).toBeNull();
    expect(r.reason).toMatch(/ollama:gone:8.*unavailable/);
    // Search still answers, and says why vectors were not used.
    const res = await searchReferences(root, { question: 'parseConfig', topic: 'topic-widgetry' });
    expect(res.vector_search).toMatchObject({ available: false });
    expect(res.vector_search.reason).toMatch(/no vectors|unavailable/);
    expect(res.results.length).toBeGreaterThan(0);
    // The record is never replaced by a fallback.
    expect((await readConfig(root)).embedding.recorded).toBe('ollama:gone:8');
  });

  it('"none" means lexical only and leaves the record alone', async () => {
    await configure('auto', big.url, undefined, 'ollama:bow-big:64');
    const r = await resolveEmbedder(root, { flag: 'none' });
    expect(r.embedder).toBeNull();
    expect(r.reason).toMatch(/none/);
    expect((await readConfig(root)).embedding.recorded).toBe('ollama:bow-big:64');
    const res = await searchReferences(root, { question: 'parseConfig', topic: 'topic-widgetry', embedderFlag: 'none' });
    expect(res.vector_search.available).toBe(false);
    expect(big.texts).toHaveLength(0);
  });

  it('rebuild needs no model: vectors come back from the cache, and topic search embeds only the query', async () => {
    await configure('ollama', big.url, 'bow-big', 'ollama:bow-big:64');
    const a = await resolveEmbedder(root);
    await syncIndex(root, { embedder: a.embedder });
    const n = big.texts.length;
    const rebuilt = await rebuildIndex(root);
    expect(big.texts.length).toBe(n); // nothing embedded
    expect(rebuilt.vector_search).toMatchObject({ available: true, embedder: 'ollama:bow-big:64', pending: 0 });
    expect(rebuilt.topics['topic-widgetry']!.vectors).toBe(rebuilt.topics['topic-widgetry']!.chunks);
    const hits = await searchTopics(root, 'widgetry');
    expect(hits[0]?.topic_id).toBe('topic-widgetry');
    expect(big.texts.slice(n)).toEqual(['widgetry']); // the query, nothing else
  });

  it('rebuild with an explicit embedder that cannot run exits UNAVAILABLE and discards nothing', async () => {
    await configure('ollama', big.url, 'bow-big', 'ollama:bow-big:64');
    await syncIndex(root, { embedder: (await resolveEmbedder(root)).embedder });
    const before = (await loadHead(root, 'topic-widgetry'))!.vectors;
    await configure('ollama', big.url, 'bow-big');
    const dead = await startEmbedServer(8);
    await dead.close();
    process.env.TKOMA_REF_EMBED_URL = dead.url;
    try {
      await expect(rebuildIndex(root, { embedderFlag: 'ollama' })).rejects.toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
    } finally {
      delete process.env.TKOMA_REF_EMBED_URL;
    }
    forgetTopicIndex(root);
    expect((await loadHead(root, 'topic-widgetry'))!.vectors).toEqual(before);
  });

  it('rejects an unknown provider name', async () => {
    await expect(resolveEmbedder(root, { flag: 'word2vec' })).rejects.toMatchObject({ code: 'INVALID_ENUM' });
  });
});

describe('model change', () => {
  it('builds the new space in the background while the old one serves, then swaps; never mixed', async () => {
    await configure('ollama', big.url, 'bow-big', 'ollama:bow-big:64');
    const a = (await resolveEmbedder(root)).embedder!;
    const first = await syncIndex(root, { embedder: a });
    const chunks = first.topics['topic-widgetry']!.chunks;
    expect(first.topics['topic-widgetry']!.vectors).toBe(chunks);

    // The operator deliberately picks another model: recorded at once, nothing re-embedded yet.
    const { setEmbedder } = await import('../../src/lib/vectors/choice.js');
    const { buildVectors } = await import('../../src/lib/vectors/builder.js');
    const set = await setEmbedder(root, { provider: 'ollama', model: 'bow-small', chunks: 'on' }, { startWorker: false });
    expect(set).toMatchObject({ recorded: 'ollama:bow-small:64', previous: 'ollama:bow-big:64', chunk_vectors: true });
    expect((await loadHead(root, 'topic-widgetry'))!.vectors).toMatchObject({ key: 'ollama:bow-big:64', count: chunks });

    // A builder stopped after one batch: the old space still serves every chunk, alone.
    const b = (await resolveEmbedder(root)).embedder!;
    expect(b.key).toBe('ollama:bow-small:64');
    let batches = 0;
    const partial = await buildVectors(root, { embedder: b, chunks: true, batchSize: 2, shouldStop: () => batches++ >= 2 });
    expect(partial.stopped).toBe(true);
    let head = (await loadHead(root, 'topic-widgetry'))!;
    expect(head.vectors).toMatchObject({ key: 'ollama:bow-big:64', count: chunks });
    let ann = JSON.parse(readFileSync(join(root, '.tkoma/index/topics/topic-widgetry/ann.json'), 'utf8'));
    expect(ann).toMatchObject({ key: 'ollama:bow-big:64', dimension: 64 });
    forgetTopicIndex(root);
    const during = await searchReferences(root, { question: 'resize the grid', topic: 'topic-widgetry' });
    expect(during.vector_search).toMatchObject({ available: true, embedder: 'ollama:bow-big:64', coverage: 1 });

    // The builder resumes (the cache keeps the batches done) and swaps the whole topic at once.
    const before = big.texts.length;
    const done = await buildVectors(root, { embedder: b, chunks: true });
    expect(done.stopped).toBeUndefined();
    expect(big.texts.length - before).toBeLessThan(chunks + 2); // the stopped run's batches were kept
    head = (await loadHead(root, 'topic-widgetry'))!;
    expect(head.vectors).toMatchObject({ key: 'ollama:bow-small:64', dimension: 64, complete: true, count: chunks });
    ann = JSON.parse(readFileSync(join(root, '.tkoma/index/topics/topic-widgetry/ann.json'), 'utf8'));
    expect(ann).toMatchObject({ key: 'ollama:bow-small:64', dimension: 64 });
    expect(ann.labels).toHaveLength(chunks);
    const notes = JSON.parse(readFileSync(join(root, '.tkoma/index/notes.json'), 'utf8'));
    expect(notes).toMatchObject({ key: 'ollama:bow-small:64', dimension: 64 });

    forgetTopicIndex(root);
    const res = await searchReferences(root, { question: 'resize the grid', topic: 'topic-widgetry' });
    expect(res.vector_search).toMatchObject({ available: true, embedder: 'ollama:bow-small:64', coverage: 1, pending: 0 });
    expect(res.results[0]?.path).toBe('src/lib.rs');

    // Back to the first model: its vectors come from the cache, the model is not asked again.
    const n = big.texts.length;
    await setEmbedder(root, { provider: 'ollama', model: 'bow-big' }, { startWorker: false });
    const back = await buildVectors(root, { embedder: a, chunks: true });
    expect(back.embedded).toBe(0);
    expect(big.texts.length).toBe(n);
    expect((await loadHead(root, 'topic-widgetry'))!.vectors).toMatchObject({ key: 'ollama:bow-big:64', dimension: 64, count: chunks });
  });
});
