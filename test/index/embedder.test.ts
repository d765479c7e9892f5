import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { forgetEmbedders, parseRecordedKey, resolveEmbedder } from '../../src/lib/index/embedder.js';
import { rebuildIndex, syncIndex } from '../../src/lib/index/service.js';
import { forgetTopicIndex, loadHead } from '../../src/lib/index/topic-index.js';
import { searchReferences, searchTopics } from '../../src/lib/search/search.js';
import { readConfig, writeConfig } from '../../src/lib/store/config.js';
import { type EmbedServer, makeTmpRoot, SAMPLE_FILES, startEmbedServer, writeTopic } from './helpers.js';

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
  it('records the embedder that builds the index, once', async () => {
    await configure('ollama', big.url, 'bow-big');
    const first = await resolveEmbedder(root);
    expect(first.embedder?.key).toBe('ollama:bow-big:64');
    expect(first.recordedChanged).toBe(true);
    expect((await readConfig(root)).embedding.recorded).toBe('ollama:bow-big:64');
    const second = await resolveEmbedder(root);
    expect(second.recordedChanged).toBeUndefined();
    expect(second.embedder?.key).toBe('ollama:bow-big:64');
  });

  it('auto uses exactly the recorded embedder', async () => {
    await configure('auto', big.url, undefined, 'ollama:bow-big:64');
    const r = await resolveEmbedder(root);
    expect(r.embedder?.key).toBe('ollama:bow-big:64');
    expect(r.recordedChanged).toBeUndefined();
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
    expect(res.vector_search.reason).toMatch(/unavailable/);
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

  it('rebuild and topic search resolve the embedder themselves', async () => {
    await configure('ollama', big.url, 'bow-big');
    const rebuilt = await rebuildIndex(root);
    expect(rebuilt.vector_search).toEqual({ available: true, embedder: 'ollama:bow-big:64' });
    expect(rebuilt.recorded_changed).toBe(true);
    expect(rebuilt.topics['topic-widgetry']!.vectors).toBe(rebuilt.topics['topic-widgetry']!.chunks);
    const lexical = await rebuildIndex(root, { embedderFlag: 'none' });
    expect(lexical.vector_search.available).toBe(false);
    expect(lexical.topics['topic-widgetry']!.vectors).toBe(0);
    const n = big.texts.length;
    expect((await searchTopics(root, 'widgetry', { embedderFlag: 'none' }))[0]?.topic_id).toBe('topic-widgetry');
    expect(big.texts.length).toBe(n);
  });

  it('rejects an unknown provider name', async () => {
    await expect(resolveEmbedder(root, { flag: 'word2vec' })).rejects.toMatchObject({ code: 'INVALID_ENUM' });
  });
});

describe('model change', () => {
  it('re-embeds everything with the new model and never mixes dimensions', async () => {
    await configure('ollama', big.url, 'bow-big');
    const a = await resolveEmbedder(root);
    const first = await syncIndex(root, { embedder: a.embedder });
    const chunks = first.topics['topic-widgetry']!.chunks;
    expect(first.topics['topic-widgetry']!.vectors).toBe(chunks);

    // The operator explicitly picks another model: the record moves, and the next sync re-embeds.
    await configure('ollama', small.url, 'bow-small', 'ollama:bow-big:64');
    const b = await resolveEmbedder(root);
    expect(b.embedder?.key).toBe('ollama:bow-small:24');
    expect(b.recordedChanged).toBe(true);
    expect((await readConfig(root)).embedding.recorded).toBe('ollama:bow-small:24');

    const second = await syncIndex(root, { embedder: b.embedder });
    expect(second.topics['topic-widgetry']).toMatchObject({ added: 0, changed: 0, vectors: chunks });
    expect(second.embedded).toBe(small.texts.length);
    expect(small.texts.length).toBeGreaterThanOrEqual(chunks); // every chunk (+ the note) by the new model
    const head = (await loadHead(root, 'topic-widgetry'))!;
    expect(head.vectors).toMatchObject({ key: 'ollama:bow-small:24', dimension: 24, complete: true, count: chunks });
    const ann = JSON.parse(readFileSync(join(root, '.tkoma/index/topics/topic-widgetry/ann.json'), 'utf8'));
    expect(ann).toMatchObject({ key: 'ollama:bow-small:24', dimension: 24 });
    expect(ann.labels).toHaveLength(chunks);
    const notes = JSON.parse(readFileSync(join(root, '.tkoma/index/notes.json'), 'utf8'));
    expect(notes).toMatchObject({ key: 'ollama:bow-small:24', dimension: 24 });

    const res = await searchReferences(root, { question: 'resize the grid', topic: 'topic-widgetry' });
    expect(res.vector_search).toMatchObject({ available: true, embedder: 'ollama:bow-small:24' });
    expect(res.results[0]?.path).toBe('src/lib.rs');

    // Back to the first model: its vectors come from the cache, the model is not asked again.
    const before = big.texts.length;
    await configure('ollama', big.url, 'bow-big', 'ollama:bow-small:24');
    const again = await resolveEmbedder(root);
    const third = await syncIndex(root, { embedder: again.embedder });
    expect(third.embedded).toBe(0);
    expect(big.texts.length).toBe(before);
    expect((await loadHead(root, 'topic-widgetry'))!.vectors).toMatchObject({ key: 'ollama:bow-big:64', dimension: 64, count: chunks });
  });
});
