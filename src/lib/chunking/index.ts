/**
 * Chunkers that cut reference files into searchable pieces. Importing this module is cheap:
 * the tree-sitter runtime and grammars load on the first code file (see code.ts).
 */
import { chunkLines } from './lines.js';
import { chunkMarkdown } from './markdown.js';
import { isProsePath, languageForPath, roleForPath } from './paths.js';
import type { Chunk } from './types.js';
import type { ChunkOptions } from './util.js';

export type { Chunk } from './types.js';
export type { ChunkOptions } from './util.js';
export { chunkLines } from './lines.js';
export { chunkMarkdown } from './markdown.js';
export { isProsePath, languageForPath, roleForPath } from './paths.js';

/** Loaded on the first code file; kept so later files skip module resolution. */
let codeModule: Promise<typeof import('./code.js')> | undefined;

/**
 * Chunks one file: prose (markdown, rst, text, README…) by headings, code with a tree-sitter
 * grammar by syntax, everything else (data, config, raw HTML, unknown languages) by line windows.
 * Empty or whitespace-only content gives no chunks. Never throws for any content.
 */
export async function chunkFile(path: string, content: string, opts: ChunkOptions = {}): Promise<Chunk[]> {
  if (content.trim() === '') return [];
  if (isProsePath(path)) return chunkMarkdown(path, content, opts);
  const language = languageForPath(path);
  if (language) {
    codeModule ??= import('./code.js');
    const { chunkCode } = await codeModule;
    return chunkCode(path, content, language, opts);
  }
  return chunkLines(path, content, opts, { role: roleForPath(path) });
}
