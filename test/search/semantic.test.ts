/**
 * With the real Universal Sentence Encoder Lite (slow: the corpus is tiny and one model is
 * shared by the whole file): answers found by meaning when the words differ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createEmbedder } from '../../src/lib/embedding/index.js';
import { createOllamaEmbedder } from '../../src/lib/embedding/ollama.js';
import type { Embedder } from '../../src/lib/embedding/types.js';
import { forgetEmbedders, resolveEmbedder } from '../../src/lib/embedding/root-embedder.js';
import { forgetTopicIndex, loadHead, syncIndex } from '../../src/lib/index/service.js';
import { searchReferences, searchTopics } from '../../src/lib/search/search.js';
import { readConfig } from '../../src/lib/store/config.js';
import { makeTmpRoot, startEmbedServer, writeTopic } from '../helpers/index-topics.js';

let use: Embedder;
let root: string;
let cleanup: () => void;

beforeAll(async () => {
  use = (await createEmbedder({ provider: 'use-lite' }))!;
  ({ root, cleanup } = makeTmpRoot());
  await writeTopic(root, {
    id: 'topic-dioxus-ui',
    title: 'Dioxus - Rust UI Framework',
    body: '# Dioxus\n\nDioxus is a portable framework for building cross-platform user interfaces in Rust with RSX syntax.',
    tags: ['rust', 'ui', 'framework'],
    files: {
      'docs/lifecycle.md':
        '# Shutting down\n\nCall `app.exit()` to end the program and restore the console to its previous state.\n',
      'docs/styling.md': '# Styling\n\nAttach CSS classes to elements with the `class` attribute inside rsx! blocks.\n',
      'docs/routing.md': '# Routing\n\nDeclare routes with an enum deriving Routable; each variant maps a URL to a view.\n',
    },
  });
  await writeTopic(root, {
    id: 'topic-sourdough',
    title: 'Sourdough baking notes',
    body: '# Sourdough\n\nKeeping a starter alive and baking bread with a crisp crust.',
    tags: ['bread', 'baking'],
    files: { 'starter.md': '# Starter\n\nFeed the starter flour and water daily; it doubles in size when lively.\n' },
  });
  await writeTopic(root, {
    id: 'topic-postgres-planner',
    title: 'PostgreSQL query planner',
    body: '# Planner\n\nHow PostgreSQL chooses join orders and index scans, and how to read EXPLAIN output.',
    tags: ['sql', 'database'],
    files: { 'explain.md': '# EXPLAIN\n\nEXPLAIN ANALYZE shows estimated and actual row counts for every plan node.\n' },
  });
  await syncIndex(root, { embedder: use });
});

afterAll(() => {
  forgetTopicIndex(root);
  cleanup();
});

describe('semantic search with use-lite', () => {
  it('finds an answer to a paraphrased question that shares no content word with it', async () => {
    const question = 'How can I quit the application and give back the terminal?';
    const lexical = await searchReferences(root, { question, topic: 'topic-dioxus-ui', embedder: null });
    expect(lexical.results.map((r) => r.path)).not.toContain('docs/lifecycle.md');

    const hybrid = await searchReferences(root, { question, topic: 'topic-dioxus-ui', embedder: use, explain: true });
    expect(hybrid.vector_search).toMatchObject({ available: true, embedder: use.key, coverage: 1 });
    expect(hybrid.results[0]?.path).toBe('docs/lifecycle.md');
    expect(hybrid.results[0]!.explain!.lexical).toBeNull();
    expect(hybrid.results[0]!.explain!.vector!.similarity).toBeGreaterThan(0.2);
  });

  it('finds a topic by meaning alone', async () => {
    const query = 'toolkit to create desktop and web apps resembling React';
    expect(await searchTopics(root, query, { embedder: null })).toEqual([]);
    const hits = await searchTopics(root, query, { embedder: use });
    expect(hits[0]?.topic_id).toBe('topic-dioxus-ui');
    expect(hits.map((h) => h.topic_id)).not.toContain('topic-sourdough');
    // ...and reference search without a topic picks it too.
    const res = await searchReferences(root, { question: query, embedder: use });
    expect(res.topic?.topic_id).toBe('topic-dioxus-ui');
  });

  it('switching models re-embeds into a new vector space (512 dims after 16)', async () => {
    const { root: r2, cleanup: c2 } = makeTmpRoot();
    const server = await startEmbedServer(16);
    try {
      await writeTopic(r2, {
        id: 'topic-small',
        title: 'Small',
        body: '# Small\n\nA small topic.',
        files: { 'a.md': '# Exit\n\nCall exit to terminate the program.\n', 'b.md': '# Colours\n\nSet the palette.\n' },
      });
      const bow = await createOllamaEmbedder({ provider: 'ollama', url: server.url, model: 'bow' });
      const first = await syncIndex(r2, { embedder: bow });
      expect((await loadHead(r2, 'topic-small'))!.vectors).toMatchObject({ dimension: 16 });
      const second = await syncIndex(r2, { embedder: use });
      expect(second.topics['topic-small']!.embedded).toBe(first.topics['topic-small']!.chunks);
      expect((await loadHead(r2, 'topic-small'))!.vectors).toMatchObject({ key: use.key, dimension: 512, complete: true });
      const res = await searchReferences(r2, { question: 'stop the app', topic: 'topic-small', embedder: use });
      expect(res.results[0]?.path).toBe('a.md');
    } finally {
      forgetTopicIndex(r2);
      await server.close();
      c2();
    }
  });

  it('auto without a record resolves to a working embedder here and never records it (a read never commits)', async () => {
    const { root: r3, cleanup: c3 } = makeTmpRoot();
    try {
      forgetEmbedders();
      const resolved = await resolveEmbedder(r3);
      expect(resolved.embedder?.key).toBe(use.key); // transformers cannot download here; use-lite works offline
      expect(resolved.recordedChanged).toBeUndefined();
      expect((await readConfig(r3)).embedding.recorded).toBeUndefined();
    } finally {
      c3();
    }
  });
});
