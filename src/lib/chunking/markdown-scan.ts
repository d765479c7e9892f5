import type { LineIndex } from './util.js';

/** A heading found in a prose file. Rows are 0-based; an rst overline makes startRow < textRow. */
export interface Heading {
  startRow: number;
  textRow: number;
  endRow: number;
  level: number;
  text: string;
}

export interface ProseScan {
  /** First row after front matter. */
  bodyStart: number;
  /** `title` from front matter, if any. */
  frontTitle?: string;
  headings: Heading[];
  /** Per row: id of the code fence / literal block holding it, or -1. Such rows are never cut. */
  blockOf: Int32Array;
}

const FRONT_KEY = /^\s*(#.*|[\w"'.-]+\s*[:=].*|-\s.*|\s.*)?$/;

/** Front matter between `---` (YAML) or `+++` (TOML) lines at the very top. */
function frontMatter(idx: LineIndex): { end: number; title?: string } | undefined {
  const first = idx.line(0).trim();
  if (first !== '---' && first !== '+++') return undefined;
  const limit = Math.min(idx.lineCount - 1, 400);
  for (let r = 1; r <= limit; r++) {
    const t = idx.line(r).trim();
    if (t === first || (first === '---' && t === '...')) {
      let title: string | undefined;
      for (let k = 1; k < r; k++) {
        const m = /^title\s*[:=]\s*(.+?)\s*$/.exec(idx.line(k));
        if (m) {
          title = m[1].replace(/^(["'])(.*)\1$/, '$2').trim() || undefined;
          break;
        }
      }
      return { end: r, title };
    }
    // A document that merely opens with a thematic break has prose here, not key: value lines.
    if (!FRONT_KEY.test(idx.line(r))) return undefined;
  }
  return undefined;
}

/** Strips inline markup so titles read as plain text. */
export function cleanHeading(text: string): string {
  return text
    .replace(/\s*\{#[^}]*\}\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const FENCE_OPEN = /^\s*(`{3,}|~{3,})(.*)$/;
const ATX = /^\uFEFF? {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?\s*$/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;
const NOT_SETEXT_TEXT = /^\s*([-*+>|#]|\d+[.)]\s|```|~~~|<)/;
const RST_ADORN = /^([!-/:-@[-`{-~])\1+\s*$/;
const ADOC_HEADING = /^(={1,6})[ \t]+(\S.*?)\s*$/;
const ADOC_DELIM = /^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|`{3,})\s*$/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Marks markdown fences (``` / ~~~): an unclosed fence runs to the end, as in CommonMark. */
function markFences(idx: LineIndex, from: number, blockOf: Int32Array, nextId: () => number): void {
  let open: { ch: string; len: number; id: number } | undefined;
  for (let r = from; r < idx.lineCount; r++) {
    const line = idx.line(r);
    if (open) {
      blockOf[r] = open.id;
      const m = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (m && m[1][0] === open.ch && m[1].length >= open.len) open = undefined;
      continue;
    }
    const m = FENCE_OPEN.exec(line);
    if (m && !(m[1][0] === '`' && m[2].includes('`'))) {
      open = { ch: m[1][0], len: m[1].length, id: nextId() };
      blockOf[r] = open.id;
    }
  }
}

/** rst literal blocks: indented text after a line ending in `::` or after a directive. */
function markRstLiterals(idx: LineIndex, from: number, blockOf: Int32Array, nextId: () => number): void {
  let intro = -1;
  let id = -1;
  let lastContent = -1;
  for (let r = from; r < idx.lineCount; r++) {
    const line = idx.line(r);
    if (line.trim() === '') continue;
    if (intro >= 0 && indentOf(line) > intro) {
      if (id < 0) id = nextId();
      for (let k = lastContent + 1; k <= r; k++) blockOf[k] = id;
      lastContent = r;
      continue;
    }
    intro = -1;
    id = -1;
    if (/::\s*$/.test(line) || /^\s*\.\.\s+[\w:-]+::/.test(line)) {
      intro = indentOf(line);
      lastContent = r;
    }
  }
}

function markAdocBlocks(idx: LineIndex, from: number, blockOf: Int32Array, nextId: () => number): void {
  let open: { delim: string; id: number } | undefined;
  for (let r = from; r < idx.lineCount; r++) {
    const t = idx.line(r).trim();
    if (open) {
      blockOf[r] = open.id;
      if (t === open.delim) open = undefined;
    } else if (ADOC_DELIM.test(t)) {
      open = { delim: t, id: nextId() };
      blockOf[r] = open.id;
    }
  }
}

/** Finds front matter, fenced / literal blocks and headings of a prose file. */
export function scanProse(idx: LineIndex, dialect: 'markdown' | 'rst' | 'asciidoc'): ProseScan {
  const fm = frontMatter(idx);
  const bodyStart = fm ? fm.end + 1 : 0;
  const blockOf = new Int32Array(idx.lineCount).fill(-1);
  let ids = 0;
  const nextId = (): number => ids++;
  if (dialect === 'rst') markRstLiterals(idx, bodyStart, blockOf, nextId);
  else if (dialect === 'asciidoc') markAdocBlocks(idx, bodyStart, blockOf, nextId);
  else markFences(idx, bodyStart, blockOf, nextId);

  const headings: Heading[] = [];
  const rstStyles: string[] = [];
  const blankOrEdge = (r: number): boolean => r < bodyStart || idx.isBlank(r);
  const lastHeadingEnd = (): number => (headings.length ? headings[headings.length - 1].endRow : -1);

  for (let r = bodyStart; r < idx.lineCount; r++) {
    if (blockOf[r] >= 0) continue;
    const line = idx.line(r);
    if (dialect === 'asciidoc') {
      const m = ADOC_HEADING.exec(line);
      if (m) {
        headings.push({ startRow: r, textRow: r, endRow: r, level: m[1].length, text: cleanHeading(m[2]) });
        continue;
      }
    }
    if (dialect !== 'rst') {
      const atx = ATX.exec(line);
      if (atx) {
        headings.push({ startRow: r, textRow: r, endRow: r, level: atx[1].length, text: cleanHeading(atx[2] ?? '') });
        continue;
      }
    }
    if (r === bodyStart || line.trim().length < 2) continue;
    const prev = idx.line(r - 1);
    const textOk = (row: number): boolean =>
      row >= bodyStart && blockOf[row] < 0 && !idx.isBlank(row) && lastHeadingEnd() < row;
    if (dialect === 'markdown') {
      const m = SETEXT.exec(line);
      // Only a one-line paragraph counts, which keeps tables, lists and hard-wrapped prose intact.
      if (m && textOk(r - 1) && indentOf(prev) <= 3 && !NOT_SETEXT_TEXT.test(prev) && !SETEXT.test(prev) &&
        (blankOrEdge(r - 2) || lastHeadingEnd() === r - 2 || blockOf[r - 2] >= 0)) {
        headings.push({ startRow: r - 1, textRow: r - 1, endRow: r, level: m[1][0] === '=' ? 1 : 2, text: cleanHeading(prev) });
      }
    } else if (dialect === 'rst') {
      const t = line.trim();
      if (!RST_ADORN.test(t) || !textOk(r - 1) || RST_ADORN.test(prev.trim()) || indentOf(prev) > 0) continue;
      const title = prev.trim();
      if (t.length < Math.min(3, title.length)) continue;
      const over = r - 2 >= bodyStart && idx.line(r - 2).trim() === t && blockOf[r - 2] < 0;
      if (!over && !(blankOrEdge(r - 2) || lastHeadingEnd() === r - 2)) continue;
      const style = t[0] + (over ? 'o' : 'u');
      let level = rstStyles.indexOf(style) + 1;
      if (level === 0) level = rstStyles.push(style);
      headings.push({ startRow: over ? r - 2 : r - 1, textRow: r - 1, endRow: r, level, text: cleanHeading(title) });
    }
  }
  return { bodyStart, frontTitle: fm?.title, headings, blockOf };
}
