/**
 * Issue 26: a topicless search weighs each topic's words as a whole (topic-choice.ts topicFit),
 * counted by the across-topic BM25 query over real indexes. The shape of bench/cross-topic.ts's
 * misses: one strong hit in a small library whose pages are about the question's words, against
 * several middling hits in a big one that uses them here and there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { forgetTopicIndex, searchLexical, searchLexicalAcross, syncIndex } from '../../src/lib/index/service.js';
import { openIndexes, rankChunks } from '../../src/lib/search/rank.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { chooseTopic, isNotEvidence, topicFit } from '../../src/lib/search/topic-choice.js';
import { loadAllTopics } from '../../src/lib/store/topic-files.js';
import { makeTmpRoot, writeTopic } from '../helpers/index-topics.js';

const QUESTION = 'order object keys by their values';

// A small library about exactly this: one page answers, and its other pages each name one of the words.
const STABLE = {
  id: 'topic-stable',
  title: 'stable: deterministic JSON',
  body: '# stable\n\nDeterministic JSON output.',
  files: {
    'README.md':
      '# stable\n\n## cmp\n\nPass a cmp function to order object keys by their values instead of their names: it gets two entries, each with a key and a value.\n\n## cycles\n\nWith cycles set, an object that refers to itself is written as a marker.\n',
    'docs/keys.md': '# Keys\n\nThe keys are sorted before anything is written, so equal inputs give equal text.\n',
    'docs/values.md': '# Values\n\nValues such as dates are written through toJSON first, as JSON.stringify does.\n',
    'docs/order.md': '# Order\n\nArrays keep the order they had; nothing else is moved.\n',
  },
};

// A big library about something else, whose code uses the same common words in a few places.
function bigFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) {
    files[`src/check${i}.ts`] = `export function check${i}(input: unknown): boolean {\n  return typeof input === 'string' && input.length > ${i};\n}\n`;
  }
  const middling = [
    'export function entries(o: Record<string, unknown>) {\n  // the keys of the object and their values, in insertion order\n  return Object.keys(o).map((k) => [k, o[k]]);\n}\n',
    'export function pick(o: Record<string, unknown>, keys: string[]) {\n  // an object holding only these keys and their values\n  return Object.fromEntries(keys.map((k) => [k, o[k]]));\n}\n',
    'export function invert(o: Record<string, string>) {\n  // values become keys of the new object, in key order\n  return Object.fromEntries(Object.entries(o).map(([k, v]) => [v, k]));\n}\n',
    'export function shape(o: object) {\n  // object keys sorted by name, their values left out\n  return Object.keys(o).sort();\n}\n',
  ];
  middling.forEach((text, i) => (files[`src/object${i}.ts`] = text));
  return files;
}
const SCHEMAS = { id: 'topic-schemas', title: 'schemas: validation', body: '# schemas\n\nSchema validation.', files: bigFiles() };

let root: string;
let cleanup: () => void;
beforeEach(async () => {
  ({ root, cleanup } = makeTmpRoot());
  await writeTopic(root, STABLE);
  await writeTopic(root, SCHEMAS);
  await syncIndex(root, {});
});
afterEach(() => {
  forgetTopicIndex(root);
  cleanup();
});

describe('topic choice by the topics’ words', () => {
  it('counts the query words per topic in the across-topic query, and the fit turns the choice', async () => {
    const { topics } = await loadAllTopics(root);
    const opened = await openIndexes(root, topics, null, false);
    const ranked = await rankChunks(QUESTION, opened, null, null, { searchLexical, searchLexicalAcross }, 30, 'lexical');
    const counts = ranked.topicTerms!;
    for (const o of opened) expect(counts.topics.get(o.topic.front.id)!.docs).toBe(o.index.chunks.size);
    expect(counts.idf.length).toBe(counts.topics.get('topic-stable')!.df.length);

    const evidence = ranked.hits.filter((h) => !isNotEvidence(h.path, ranked.refs.get(h.key)!.chunk.role));
    expect(evidence[0]!.topicId).toBe('topic-stable');
    // The chunk hits alone: the big library's several middling hits outweigh the one strong page.
    expect(chooseTopic(evidence, [])).toBe('topic-schemas');
    const fit = topicFit(counts);
    expect(fit.get('topic-stable')!).toBeGreaterThan(0);
    expect(fit.get('topic-schemas')!).toBeLessThan(0);
    expect(chooseTopic(evidence, [], undefined, fit)).toBe('topic-stable');

    const res = await searchReferences(root, { question: QUESTION, mode: 'lexical', embedderFlag: 'none' });
    expect(res.topic?.topic_id).toBe('topic-stable');
    expect(res.results[0]?.path).toBe('README.md');
  });
});
