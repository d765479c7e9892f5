import type { Chunk } from '../chunking/types.js';

/**
 * What BM25 indexes of a chunk, in the order of bm25's DEFAULT_BUILD weights. A module of its
 * own: the chunk worker threads count terms with it, and commands that never search load the
 * segment files' module without wanting the BM25 engine.
 */
export function lexicalFields(c: Pick<Chunk, 'title' | 'symbol'>, path: string, text: string): string[] {
  return [c.title, c.symbol ?? '', path, text];
}
