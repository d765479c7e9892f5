/**
 * Text that reaches other ghosts' prompts (titles and tags: `topic recent`, `topic list`, search
 * answers) is one line, bounded, and free of control and bidi characters, so a title cannot
 * smuggle a `## SYSTEM:` heading or reorder what a reader sees. Requests are cleaned and checked on
 * the way in (`request.ts`); what is read back from a hand-edited topic.md is cleaned again before
 * it is shown (`read.ts`). Pure.
 */

export const MAX_TITLE_CHARS = 200;
export const MAX_TAGS = 32;
export const MAX_TAG_CHARS = 64;

/**
 * Removed outright: C0 and C1 controls (line breaks become spaces first), DEL, the Unicode line
 * and paragraph separators, bidi marks, embeddings, overrides and isolates, zero-width characters
 * and the byte-order mark, and the invisible "tag" characters (U+E0000–E007F) that spell hidden
 * ASCII.
 */
 
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;
 
const BREAKS = /[\t\n\r\u0085\u2028\u2029]+/g;

/** One line: breaks become spaces, invisible characters go, runs of spaces collapse, trimmed. */
export function oneLine(text: string): string {
  return text.replace(BREAKS, ' ').replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
}

/** Cut to `max` characters (code points), with an ellipsis when something was cut. */
export function bounded(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

export function charCount(text: string): number {
  return Array.from(text).length;
}

/** A title as shown to ghosts: one line, at most MAX_TITLE_CHARS. */
export function displayTitle(title: string): string {
  return bounded(oneLine(title), MAX_TITLE_CHARS);
}

/** Tags as shown to ghosts: one line each, non-empty, unique, at most MAX_TAGS of MAX_TAG_CHARS. */
export function displayTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of tags) {
    const clean = bounded(oneLine(String(t)), MAX_TAG_CHARS);
    if (clean && !out.includes(clean)) out.push(clean);
    if (out.length >= MAX_TAGS) break;
  }
  return out;
}
