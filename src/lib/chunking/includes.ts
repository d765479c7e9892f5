/**
 * Include directives of documentation pages, resolved so a page's chunks hold the code it shows
 * (issue 26): mdbook `{{#include path}}` / `{{#rustdoc_include path}}` with line ranges and
 * anchors, Sphinx `.. literalinclude:: path` with `:lines:`, `:start-after:`, `:end-before:`,
 * AsciiDoc `include::path[lines=…, tag=…]`. Pure: the caller reads the targets (same topic only).
 *
 * The page's rows stay the page's: a chunk's text has each directive's rows replaced by the
 * included lines, its start and end lines do not move, and `alignToPage` maps the text's lines
 * back to the page's rows when a hit needs line numbers.
 */
import type { Chunk } from './types.js';
import { sha256 } from './util.js';

/** What of the target a directive takes: the whole file, a line range (1-based, inclusive), an anchor. */
export type IncludePick =
  | { kind: 'all' }
  | { kind: 'lines'; ranges: Array<[number, number]> }
  | { kind: 'anchor'; name: string }
  | { kind: 'between'; after?: string; before?: string };

export interface IncludeRef {
  /** Rows of the page (0-based, inclusive) the directive occupies. */
  startRow: number;
  endRow: number;
  /** The target, relative to the topic folder; null when the path leaves it. */
  target: string | null;
  /** The path as the directive writes it. */
  ref: string;
  pick: IncludePick;
  /** For a directive inside a line (mdbook): the text around it, kept around the included lines. */
  before: string;
  after: string;
}

/** Rows of a page (0-based, inclusive) replaced by the included lines. */
export interface Expansion {
  startRow: number;
  endRow: number;
  lines: string[];
}

/** One include brings at most this much into a chunk: search needs the code's words, not all of a long file. */
const MAX_LINES = 80;
const MAX_CHARS = 4000;
/** A chunk's text grows by at most this much in all: a page of twenty includes stays one readable chunk. */
const MAX_ADDED_CHARS = 8000;

const MDBOOK = /(\\)?\{\{#(include|rustdoc_include)\s+([^}\s]+)\s*\}\}/;
const SPHINX = /^\s*\.\.\s+literalinclude::\s+(\S+)\s*$/;
const SPHINX_OPTION = /^\s+:([a-z-]+):\s*(.*)$/;
const ASCIIDOC = /^include::([^[\s]+)\[([^\]]*)\]\s*$/;

/** A page's target path, relative to the topic, or null when it climbs out of the topic (or is absolute). */
export function resolveTarget(page: string, ref: string): string | null {
  if (ref.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(ref)) return null;
  const parts = page.split('/').slice(0, -1);
  for (const p of ref.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(p);
  }
  return parts.length ? parts.join('/') : null;
}

/** `10:20`, `10:`, `:20`, `5` or an anchor name, as mdbook reads the part after the path. */
function mdbookPick(spec: string | undefined): IncludePick {
  if (spec === undefined || spec === '') return { kind: 'all' };
  const m = /^(\d*)(?::(\d*))?$/.exec(spec);
  if (!m) return { kind: 'anchor', name: spec };
  const from = m[1] ? Number(m[1]) : 1;
  if (m[2] === undefined) return m[1] ? { kind: 'lines', ranges: [[from, from]] } : { kind: 'all' };
  return { kind: 'lines', ranges: [[from, m[2] ? Number(m[2]) : Infinity]] };
}

/** `1-3,7,10-` (Sphinx) or `1..3;7` (AsciiDoc) as ranges. */
function rangeList(spec: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const part of spec.split(/[,;]/)) {
    const m = /^\s*(\d*)\s*(?:(-|\.\.)\s*(-?\d*))?\s*$/.exec(part);
    if (!m || (!m[1] && !m[3])) continue;
    const from = m[1] ? Number(m[1]) : 1;
    const to = m[2] === undefined ? from : m[3] && m[3] !== '-1' ? Number(m[3]) : Infinity;
    out.push([from, to]);
  }
  return out;
}

/** The include directives of a page, in row order. Cheap for pages without any (one test per dialect). */
export function findIncludes(path: string, content: string): IncludeRef[] {
  const lower = path.toLowerCase();
  const mdbook = content.includes('{{#') && /\.(md|markdown|mdx)$/.test(lower);
  const sphinx = content.includes('literalinclude::') && /\.(rst|txt)$/.test(lower);
  const asciidoc = content.includes('include::') && /\.(adoc|asciidoc|asc)$/.test(lower);
  if (!mdbook && !sphinx && !asciidoc) return [];
  const rows = content.split('\n');
  const out: IncludeRef[] = [];
  for (let r = 0; r < rows.length; r++) {
    const line = rows[r]!;
    if (mdbook) {
      const m = MDBOOK.exec(line);
      if (m && !m[1]) {
        const [file, ...rest] = m[3]!.split(':');
        out.push({ startRow: r, endRow: r, target: resolveTarget(path, file!), ref: file!, pick: mdbookPick(rest.join(':') || undefined), before: line.slice(0, m.index), after: line.slice(m.index + m[0].length) });
      }
    } else if (sphinx) {
      const m = SPHINX.exec(line);
      if (!m) continue;
      const ref: IncludeRef = { startRow: r, endRow: r, target: resolveTarget(path, m[1]!), ref: m[1]!, pick: { kind: 'all' }, before: '', after: '' };
      const between: { after?: string; before?: string } = {};
      while (r + 1 < rows.length) {
        const o = SPHINX_OPTION.exec(rows[r + 1]!);
        if (!o) break;
        r++;
        ref.endRow = r;
        if (o[1] === 'lines') ref.pick = { kind: 'lines', ranges: rangeList(o[2]!) };
        else if (o[1] === 'start-after' && o[2]) between.after = o[2].trim();
        else if (o[1] === 'end-before' && o[2]) between.before = o[2].trim();
      }
      if (ref.pick.kind === 'all' && (between.after || between.before)) ref.pick = { kind: 'between', ...between };
      out.push(ref);
    } else {
      const m = ASCIIDOC.exec(line);
      if (!m || m[1]!.includes('{')) continue; // attribute references ({examplesdir}) are not resolved
      let pick: IncludePick = { kind: 'all' };
      for (const attr of m[2]!.split(/,(?=\s*\w+=)/)) {
        const [key, raw = ''] = attr.split('=');
        const value = raw.trim().replace(/^"(.*)"$/, '$1');
        if (key!.trim() === 'lines') pick = { kind: 'lines', ranges: rangeList(value) };
        else if (key!.trim() === 'tag' || key!.trim() === 'tags') pick = { kind: 'anchor', name: value.split(';')[0]! };
      }
      out.push({ startRow: r, endRow: r, target: resolveTarget(path, m[1]!), ref: m[1]!, pick, before: '', after: '' });
    }
  }
  return out;
}

/** Anchor and tag marker lines (mdbook `ANCHOR: x`, AsciiDoc `tag::x[]`): never part of the shown code. */
const MARKER = /\b(ANCHOR(?:_END)?:\s*[\w-]+|(?:tag|end)::[\w-]+\[\])/;

/** The lines a pick takes from the target's text; null when it names an anchor or text the file lacks. */
export function pickLines(text: string, pick: IncludePick): string[] | null {
  const lines = text.replace(/\n$/, '').split('\n');
  let out: string[];
  if (pick.kind === 'all') out = lines;
  else if (pick.kind === 'lines') {
    out = [];
    for (const [from, to] of pick.ranges) out.push(...lines.slice(from - 1, to === Infinity ? undefined : to));
  } else if (pick.kind === 'anchor') {
    const open = new RegExp(`\\b(?:ANCHOR:\\s*|tag::)${escape(pick.name)}\\b`);
    const close = new RegExp(`\\b(?:ANCHOR_END:\\s*|end::)${escape(pick.name)}\\b`);
    const start = lines.findIndex((l) => open.test(l));
    if (start < 0) return null;
    const end = lines.findIndex((l, i) => i > start && close.test(l));
    out = lines.slice(start + 1, end < 0 ? undefined : end);
  } else {
    const a = pick.after === undefined ? -1 : lines.findIndex((l) => l.includes(pick.after!));
    const b = pick.before === undefined ? -1 : lines.findIndex((l, i) => i > a && l.includes(pick.before!));
    if ((pick.after !== undefined && a < 0) || (pick.before !== undefined && b < 0)) return null;
    out = lines.slice(a + 1, b < 0 ? undefined : b);
  }
  out = out.filter((l) => !MARKER.test(l));
  // mdbook's own trimming: the common indentation of an anchored region goes.
  const indent = Math.min(...out.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length));
  if (indent > 0 && Number.isFinite(indent)) out = out.map((l) => l.slice(indent));
  let chars = 0;
  const kept: string[] = [];
  for (const l of out) {
    if (kept.length >= MAX_LINES || chars + l.length > MAX_CHARS) break;
    kept.push(l);
    chars += l.length + 1;
  }
  return kept.length ? kept : null;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The page's includes as row replacements: `read` gives a target's text (null when it is not in
 * the topic or not text). A directive whose target or anchor is missing stays as it is.
 */
export function expandIncludes(refs: readonly IncludeRef[], read: (target: string) => string | null): Expansion[] {
  const out: Expansion[] = [];
  const texts = new Map<string, string | null>();
  for (const ref of refs) {
    if (ref.target === null) continue;
    if (!texts.has(ref.target)) texts.set(ref.target, read(ref.target));
    const text = texts.get(ref.target);
    const picked = text == null ? null : pickLines(text, ref.pick);
    if (!picked) continue;
    const lines = [...picked];
    lines[0] = ref.before + lines[0]!;
    lines[lines.length - 1] += ref.after;
    out.push({ startRow: ref.startRow, endRow: ref.endRow, lines });
  }
  return out;
}

/**
 * The page's chunks with each expansion inside them applied to their text (a new hash with it).
 * A chunk whose lines are not exactly the page's rows (a cut inside a line) keeps its text.
 */
export function applyExpansions(content: string, chunks: Chunk[], expansions: readonly Expansion[]): Chunk[] {
  if (expansions.length === 0) return chunks;
  const rows = content.split('\n');
  return chunks.map((c) => {
    const mine = expansions.filter((x) => x.startRow >= c.startLine - 1 && x.endRow <= c.endLine - 1);
    if (mine.length === 0) return c;
    const lines = c.text.split('\n');
    if (lines.length !== c.endLine - c.startLine + 1) return c;
    if (lines.some((l, i) => l !== rows[c.startLine - 1 + i] && l !== rows[c.startLine - 1 + i]!.trimEnd())) return c;
    const out: string[] = [];
    let row = c.startLine - 1;
    let added = 0;
    for (const x of mine) {
      const size = x.lines.reduce((n, l) => n + l.length + 1, 0);
      if (added + size > MAX_ADDED_CHARS) continue; // this directive stays as the page writes it
      added += size;
      out.push(...lines.slice(row - (c.startLine - 1), x.startRow - (c.startLine - 1)), ...x.lines);
      row = x.endRow + 1;
    }
    out.push(...lines.slice(row - (c.startLine - 1)));
    const text = out.join('\n');
    return { ...c, text, hash: sha256(text) };
  });
}

/** How many page rows a replaced run may span when aligning (a Sphinx directive and its options). */
const MAX_RUN = 16;

/**
 * Which page row (0-based within `page`) each line of `text` stands for, where `text` is `page`
 * with some runs of rows replaced by other lines (an expanded chunk). Null when no such reading
 * exists within the bounds searched.
 */
export function alignToPage(page: readonly string[], text: readonly string[]): number[] | null {
  const same = (t: string, p: string): boolean => t === p || t === p.trimEnd();
  const map: number[] = [];
  let i = 0;
  let j = 0;
  while (j < text.length) {
    if (i < page.length && same(text[j]!, page[i]!)) {
      map.push(i++);
      j++;
      continue;
    }
    const run = replacedRun(page, text, i, j);
    if (!run) return null;
    while (j < run.k) {
      map.push(i);
      j++;
    }
    i = run.next;
  }
  return map;
}

/** Rows i..next-1 of `page` replaced by text[j..k): the shortest run after which the page goes on at text[k]. */
function replacedRun(page: readonly string[], text: readonly string[], i: number, j: number): { next: number; k: number } | null {
  if (i >= page.length) return null;
  for (let i2 = i; i2 < Math.min(page.length, i + MAX_RUN); i2++) {
    if (i2 + 1 === page.length) return { next: page.length, k: text.length };
    const next = page[i2 + 1]!;
    for (let k = j + 1; k < text.length; k++) {
      // The page's rows after the run must still fit in the text's lines after k.
      if ((text[k] === next || text[k] === next.trimEnd()) && text.length - k >= page.length - (i2 + 1)) return { next: i2 + 1, k };
    }
  }
  return null;
}
