import { describe, expect, it } from 'vitest';
import {
  createLexicalIndex,
  DEFAULT_LEXICAL_CONFIG,
  lexicalSearch,
  replaceDocs,
  type LexicalDoc,
} from '../../../src/lib/index/notes/lexical.js';

const filler = (n: number, seed: string): string =>
  Array.from({ length: n }, (_, i) => `${seed}${i % 7} word${(i * 13) % 29}`).join(' ');

/** A small corpus with prose and code, so IDF values are not degenerate. */
function corpus(): LexicalDoc[] {
  return [
    { id: 'snake', title: 'config.py', path: 'pkg/config.py', text: 'def parse_config(path):\n    return load(path)' },
    { id: 'pascal', title: 'class ParseConfig', symbol: 'ParseConfig', path: 'src/Config.cs', text: 'public class ParseConfig { }' },
    { id: 'render', title: 'Rendering', path: 'docs/render.md', text: 'The renderer draws widgets on the screen. ' + filler(20, 'r') },
    { id: 'install', title: 'Install', path: 'docs/install.md', text: 'Install with npm and run the setup script. ' + filler(20, 'i') },
    { id: 'http', title: 'HTTP client', path: 'src/http.ts', text: 'export function parseHTTPResponse(raw: string) { return raw }' },
    { id: 'tags', title: 'Misc', path: 'docs/misc.md', text: 'Nothing in particular here. ' + filler(10, 'm'), tags: 'tokio async' },
  ];
}

function build(docs = corpus()) {
  const index = createLexicalIndex();
  replaceDocs(index, docs);
  return index;
}

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

describe('lexicalSearch', () => {
  it('finds parse_config and ParseConfig for the query parseConfig', () => {
    const hits = ids(lexicalSearch(build(), 'parseConfig', 10));
    expect(hits.slice(0, 2).sort()).toEqual(['pascal', 'snake']);
  });

  it('matches acronym parts of identifiers and plain words', () => {
    const index = build();
    expect(ids(lexicalSearch(index, 'http response', 3))[0]).toBe('http');
    expect(ids(lexicalSearch(index, 'rendered widget', 3))[0]).toBe('render'); // stemming
    expect(ids(lexicalSearch(index, 'async', 3))).toEqual(['tags']);
  });

  it('ranks a title match above a body mention', () => {
    const docs: LexicalDoc[] = [
      { id: 'body', title: 'Overview', path: 'a.md', text: `Some text. ${filler(30, 'b')} The scheduler is mentioned once.` },
      { id: 'title', title: 'Scheduler', path: 'b.md', text: `How the parts fit. ${filler(30, 'c')}` },
      { id: 'other', title: 'Other', path: 'c.md', text: `Unrelated. ${filler(30, 'd')}` },
    ];
    const hits = lexicalSearch(build(docs), 'scheduler', 10);
    expect(ids(hits)).toEqual(['title', 'body']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('respects the limit, returns scores best first, and nothing for empty queries', () => {
    const index = build();
    const hits = lexicalSearch(index, 'parse config http install', 2);
    expect(hits).toHaveLength(2);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
    expect(lexicalSearch(index, '   ', 10)).toEqual([]);
    expect(lexicalSearch(index, 'the of and', 10)).toEqual([]);
    expect(lexicalSearch(index, 'parseConfig', 0)).toEqual([]);
  });

  it('applies the filter before the limit', () => {
    const index = build();
    // `http` (parseHTTPResponse) ranks third; the filter removes the two above it first.
    expect(ids(lexicalSearch(index, 'parseConfig', 3))[2]).toBe('http');
    const hits = lexicalSearch(index, 'parseConfig', 1, (id) => id !== 'snake' && id !== 'pascal');
    expect(ids(hits)).toEqual(['http']);
    const only = lexicalSearch(index, 'parseConfig', 1, (id) => id === 'snake');
    expect(ids(only)).toEqual(['snake']);
  });

  it('gives plain BM25 sums unless coordination is asked for', () => {
    const plain = lexicalSearch(build(), 'parse config', 10);
    const coord = createLexicalIndex({ ...DEFAULT_LEXICAL_CONFIG, coordination: true });
    replaceDocs(coord, corpus());
    const multiplied = lexicalSearch(coord, 'parse config', 10);
    const byId = new Map(plain.map((h) => [h.id, h.score]));
    // both query terms match `snake`, so MiniSearch's factor doubles its score
    expect(multiplied.find((h) => h.id === 'snake')!.score).toBeCloseTo(2 * byId.get('snake')!, 9);
  });
});
