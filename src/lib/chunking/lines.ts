import { docLanguageForPath, languageForPath, roleForPath } from './paths.js';
import type { Chunk, Role } from './types.js';
import { basename, LineIndex, makeChunk, resolveOptions, windowRows, type ChunkOptions } from './util.js';

/** Overrides for callers that know better than the path (the code chunker's fallback). */
export interface LineChunkMeta {
  role?: Role;
  language?: string;
}

function fallbackLanguage(path: string): string {
  const lang = languageForPath(path);
  if (lang) return lang;
  if (roleForPath(path) === 'docs') return docLanguageForPath(path);
  const name = basename(path);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : 'text';
}

/**
 * Bounded line windows with overlap: at most `windowLines` lines and `maxChars` characters each,
 * consecutive windows sharing `overlapLines` lines. A line longer than `maxChars` (minified code)
 * is cut into pieces that all point at that line. Blank-only windows are dropped.
 */
export function chunkLines(path: string, content: string, opts: ChunkOptions = {}, meta: LineChunkMeta = {}): Chunk[] {
  if (content.trim() === '') return [];
  const o = resolveOptions(opts);
  const idx = new LineIndex(content);
  const m = {
    path,
    role: meta.role ?? roleForPath(path),
    language: meta.language ?? fallbackLanguage(path),
  };
  const name = basename(path);
  const chunks: Chunk[] = [];
  for (const [s, e] of windowRows(idx, 0, idx.lineCount - 1, o.maxChars, o.windowLines, o.overlapLines)) {
    const c = makeChunk(idx, s, e, m, { title: name, kind: 'window' });
    if (!c) continue;
    c.title = c.startLine === c.endLine ? `${name}:${c.startLine}` : `${name}:${c.startLine}-${c.endLine}`;
    chunks.push(c);
  }
  return chunks;
}
