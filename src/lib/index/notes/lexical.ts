/**
 * A small in-memory MiniSearch BM25 index over the topic notes only (a few hundred documents at
 * most, built per query), with the code-aware terms of the BM25 engine's tokenizer. Chunks use
 * the segmented engine in ../bm25/ instead: MiniSearch's JSON index took ~14.5 s to load at 100k
 * chunks.
 */
import MiniSearch, { type Options, type SearchOptions } from 'minisearch';
import {
  createTermProcessor,
  createTokenizer,
  DEFAULT_TERMS,
  DEFAULT_TOKENIZER,
  processTerm,
  tokenize,
  type TermOptions,
  type TokenizerOptions,
} from '../bm25/index.js';

export interface LexicalDoc {
  id: string;
  title: string;
  symbol?: string;
  path: string;
  text: string;
  tags?: string;
}

export type LexicalField = 'title' | 'symbol' | 'path' | 'text' | 'tags';

export interface LexicalConfig {
  /** MiniSearch BM25+: k = k1, b = length normalisation, d = BM25+ lower bound per matched term. */
  bm25: { k: number; b: number; d: number };
  boost: Record<LexicalField, number>;
  tokenizer: TokenizerOptions;
  terms: TermOptions;
  /**
   * MiniSearch multiplies a hit's score by its number of matched query terms (a coordination
   * factor). false divides it back out, leaving plain BM25 sums.
   */
  coordination: boolean;
  /** Prefix matching of query terms (false, or true for MiniSearch's default weight). */
  prefix: boolean;
  /** Fuzzy matching: false, or a max edit distance ratio (MiniSearch semantics). */
  fuzzy: false | number;
}

export const LEXICAL_FIELDS: readonly LexicalField[] = ['title', 'symbol', 'path', 'text', 'tags'];

export const DEFAULT_LEXICAL_CONFIG: LexicalConfig = {
  // Stronger length normalisation than Lucene's 0.9/0.4 won on both prose and code (bench).
  bm25: { k: 1.2, b: 0.9, d: 0 },
  // Fields are scored separately and summed, so a word in both title and body counts twice.
  // SciFact (paper titles that repeat their abstracts) prefers title 0.4 (+0.016 nDCG), but a
  // title-only match must still beat a passing body mention (heading paths, symbol names): 1.
  boost: { title: 1, symbol: 1, path: 1, text: 1, tags: 1 },
  tokenizer: DEFAULT_TOKENIZER,
  terms: DEFAULT_TERMS,
  coordination: false,
  prefix: false,
  fuzzy: false,
};

const configs = new WeakMap<MiniSearch<LexicalDoc>, LexicalConfig>();

function options(config: LexicalConfig): Options<LexicalDoc> {
  const isDefault =
    config.tokenizer === DEFAULT_TOKENIZER && config.terms === DEFAULT_TERMS;
  // The shared default functions keep one stemming cache for the whole process.
  const tok = isDefault ? tokenize : createTokenizer(config.tokenizer);
  const proc = isDefault ? processTerm : createTermProcessor(config.terms);
  const searchOptions: SearchOptions = {
    boost: { ...config.boost },
    bm25: { ...config.bm25 },
    combineWith: 'OR',
    prefix: config.prefix,
    fuzzy: config.fuzzy,
  };
  return {
    idField: 'id',
    fields: [...LEXICAL_FIELDS],
    storeFields: [],
    tokenize: (text) => tok(text),
    processTerm: (term) => proc(term),
    searchOptions,
  };
}

export function createLexicalIndex(config: LexicalConfig = DEFAULT_LEXICAL_CONFIG): MiniSearch<LexicalDoc> {
  const index = new MiniSearch<LexicalDoc>(options(config));
  configs.set(index, config);
  return index;
}

function configOf(index: MiniSearch<LexicalDoc>): LexicalConfig {
  return configs.get(index) ?? DEFAULT_LEXICAL_CONFIG;
}

/**
 * Best `limit` chunk ids for `query`, best first. Terms are OR-combined (BM25 ranks documents
 * matching more terms higher anyway); `filter` drops ids before the limit is applied.
 */
export function lexicalSearch(
  index: MiniSearch<LexicalDoc>,
  query: string,
  limit: number,
  filter?: (id: string) => boolean,
): { id: string; score: number }[] {
  if (limit <= 0 || query.trim() === '') return [];
  const { coordination } = configOf(index);
  const results = index.search(query, filter ? { filter: (r) => filter(r.id as string) } : {});
  const hits = results.map((r) => ({
    id: r.id as string,
    score: coordination ? r.score : r.score / Math.max(1, r.queryTerms.length),
  }));
  if (!coordination) hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, limit);
}

/** Adds new docs and replaces existing ones (by id). */
export function replaceDocs(index: MiniSearch<LexicalDoc>, docs: readonly LexicalDoc[]): void {
  for (const doc of docs) {
    // discard + add instead of remove: the index never needs the old field values (STACK.md).
    if (index.has(doc.id)) index.replace(doc);
    else index.add(doc);
  }
}
