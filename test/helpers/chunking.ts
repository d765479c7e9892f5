import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { Chunk } from '../../src/lib/chunking/types.js';

/** Every chunk is a verbatim slice of the lines it names, with tight line numbers and a true hash. */
export function expectWellFormed(content: string, chunks: Chunk[], path?: string): void {
  const lines = content.split('\n');
  for (const c of chunks) {
    if (path) expect(c.path).toBe(path);
    expect(c.startLine).toBeGreaterThanOrEqual(1);
    expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
    expect(c.endLine).toBeLessThanOrEqual(lines.length);
    expect(c.text.trim()).not.toBe('');
    const span = lines.slice(c.startLine - 1, c.endLine).join('\n');
    expect(span).toContain(c.text);
    const textLines = c.text.split('\n');
    // Tight: the first and last text lines sit on startLine and endLine.
    expect(lines[c.startLine - 1]).toContain(textLines[0]);
    expect(lines[c.endLine - 1]).toContain(textLines[textLines.length - 1]);
    expect(textLines.length).toBe(c.endLine - c.startLine + 1);
    expect(c.hash).toBe(createHash('sha256').update(c.text).digest('hex'));
  }
}

/** 1-based numbers of non-blank lines no chunk covers. */
export function uncoveredLines(content: string, chunks: Chunk[], skip: (line: number) => boolean = () => false): number[] {
  const lines = content.split('\n');
  const covered = new Uint8Array(lines.length + 2);
  for (const c of chunks) for (let l = c.startLine; l <= c.endLine; l++) covered[l] = 1;
  const out: number[] = [];
  lines.forEach((text, i) => {
    if (text.trim() !== '' && !covered[i + 1] && !skip(i + 1)) out.push(i + 1);
  });
  return out;
}

const nonSpace = (s: string): number => s.replace(/\s+/g, '').length;

/**
 * For chunkers that neither overlap nor drop text: chunks come in file order and together hold
 * exactly the file's non-whitespace characters.
 */
export function expectExactCover(content: string, chunks: Chunk[], droppedPrefix = ''): void {
  expect(chunks.reduce((n, c) => n + nonSpace(c.text), 0)).toBe(nonSpace(content) - nonSpace(droppedPrefix));
  for (let i = 1; i < chunks.length; i++) expect(chunks[i].startLine).toBeGreaterThanOrEqual(chunks[i - 1].endLine);
}

export function bySymbol(chunks: Chunk[], symbol: string): Chunk[] {
  return chunks.filter((c) => c.symbol === symbol);
}
