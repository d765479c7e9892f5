/**
 * The BM25 half of hybrid search: a MiniSearch index over chunks with code-aware terms.
 * MiniSearch stores no chunk data here (the caller keeps chunks elsewhere); ids are chunk ids.
 * Parameters were picked by bench/lexical-quality.ts (see its header for the experiment table).
 */
import MiniSearch, { type AsPlainObject, type Options, type SearchOptions } from 'minisearch';
import { TkomaError } from '../errors.js';
import {
  createTermProcessor,
  createTokenizer,
  DEFAULT_TERMS,
  DEFAULT_TOKENIZER,
  processTerm,
  tokenize,
  type TermOptions,
  type TokenizerOptions,
} from './tokenize.js';

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

/** Bump when tokenisation or field layout changes: a stored index built differently is unusable. */
const FORMAT = 'tkoma-lexical/2'; // 2: 1-char terms kept, blobs over 64 chars dropped

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

/** Removes docs by id; unknown ids are ignored. */
export function removeDocs(index: MiniSearch<LexicalDoc>, ids: Iterable<string>): void {
  for (const id of ids) if (index.has(id)) index.discard(id);
}

export function serializeLexical(index: MiniSearch<LexicalDoc>): string {
  // The index object is inlined so the whole file stays one JSON.parse away from loadJS.
  return `{"format":${JSON.stringify(FORMAT)},"index":${JSON.stringify(index)}}`;
}

/**
 * Loads what serializeLexical wrote. Throws DAMAGED_STATE for anything else (corrupt file,
 * older format): the caller rebuilds the index from the chunks.
 */
export function loadLexical(json: string, config: LexicalConfig = DEFAULT_LEXICAL_CONFIG): MiniSearch<LexicalDoc> {
  let parsed: { format?: unknown; index?: unknown };
  try {
    parsed = JSON.parse(json) as { format?: unknown; index?: unknown };
  } catch (err) {
    throw new TkomaError('DAMAGED_STATE', 'The lexical index is not valid JSON; rebuild the index.', {
      cause: err instanceof Error ? err.message : String(err),
    });
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.format !== FORMAT || typeof parsed.index !== 'object') {
    throw new TkomaError('DAMAGED_STATE', 'The lexical index has an unknown format; rebuild the index.', {
      expected: FORMAT,
      found: parsed && typeof parsed === 'object' ? (parsed.format ?? null) : null,
    });
  }
  let index: MiniSearch<LexicalDoc>;
  try {
    index = MiniSearch.loadJS<LexicalDoc>(parsed.index as AsPlainObject, options(config));
  } catch (err) {
    throw new TkomaError('DAMAGED_STATE', 'The lexical index is corrupt; rebuild the index.', {
      cause: err instanceof Error ? err.message : String(err),
    });
  }
  configs.set(index, config);
  return index;
}
