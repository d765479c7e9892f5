/**
 * How a chunk worker thread sends a file's chunks back (pool.ts). Every chunker cuts verbatim
 * slices of the file's text, and the main thread still holds that text, so a chunk travels as
 * where its text starts and how long it is, not as a copy: the text was most of each message's
 * bytes, copied once into the message and once more out of it into the main thread's heap.
 */
import type { Chunk } from './types.js';

/** A chunk without its path (the file's) and, when `at` is set, without its text (the file's slice). */
export interface WireChunk {
  startLine: number;
  endLine: number;
  role: Chunk['role'];
  title: string;
  kind: string;
  language: string;
  hash: string;
  symbol?: string;
  /** Offset of the text in the file's text; -1 when the text travels in `text` instead. */
  at: number;
  len: number;
  text?: string;
}

/** The file's chunks for the message: each text as its offset in `content` where it is found there. */
export function toWire(content: string, chunks: readonly Chunk[]): WireChunk[] {
  let hint = 0;
  return chunks.map((c) => {
    // Chunks come in file order, so the search from the last one's start is short. Any place the
    // same characters stand gives the same text back.
    let at = content.startsWith(c.text, hint) ? hint : content.indexOf(c.text, hint);
    if (at < 0) at = content.indexOf(c.text);
    if (at >= 0) hint = at;
    const w: WireChunk = {
      startLine: c.startLine,
      endLine: c.endLine,
      role: c.role,
      title: c.title,
      kind: c.kind,
      language: c.language,
      hash: c.hash,
      at,
      len: c.text.length,
    };
    if (c.symbol !== undefined) w.symbol = c.symbol;
    if (at < 0) w.text = c.text;
    return w;
  });
}

/** The chunks toWire sent, whole again: the same fields in the same order as the chunker made them. */
export function fromWire(path: string, content: string, wire: readonly WireChunk[]): Chunk[] {
  return wire.map((w) => {
    const chunk: Chunk = {
      path,
      startLine: w.startLine,
      endLine: w.endLine,
      role: w.role,
      title: w.title,
      kind: w.kind,
      language: w.language,
      text: w.at >= 0 ? content.slice(w.at, w.at + w.len) : w.text!,
      hash: w.hash,
    };
    if (w.symbol !== undefined) chunk.symbol = w.symbol;
    return chunk;
  });
}
