/**
 * `search --context`: a hit widened so one call brings the whole example. Two kinds:
 *   a number N: N more lines of the file above and below the hit;
 *   "section":  the hit's enclosing section or symbol, made of the file's chunks around it that
 *               share it: for docs, the section of the hit's parent heading ("Guide > Install" for
 *               a hit in "Guide > Install > Linux"; a top-level heading is its own section); for
 *               code, the outermost symbol ("Foo" for "Foo.bar", every part of a long function);
 *               for a line window, its neighbouring windows.
 * Either way the hit stops at MAX_CONTEXT_LINES, centred on the original lines.
 */

export type HitContext = number | 'section';

/** The most lines a widened hit spans (a section can be a whole long file). */
export const MAX_CONTEXT_LINES = 400;
/** Snippet size for widened hits when the caller gave none: room for a whole example. */
export const DEFAULT_CONTEXT_MAX_CHARS = 8000;

export interface ChunkSpan {
  startLine: number;
  endLine: number;
  title: string;
  symbol?: string;
  kind: string;
}

export interface LineRange {
  start: number;
  end: number;
}

/** Pure: N lines above and below, inside the file (1..lineCount), at most MAX_CONTEXT_LINES. */
export function widenByLines(range: LineRange, n: number, lineCount: number): LineRange {
  const grown = { start: Math.max(1, range.start - n), end: Math.min(Math.max(lineCount, range.end), range.end + n) };
  return capRange(grown, range);
}

/** Keeps at most MAX_CONTEXT_LINES of `wide`, centred on `core`. */
function capRange(wide: LineRange, core: LineRange): LineRange {
  if (wide.end - wide.start + 1 <= MAX_CONTEXT_LINES) return wide;
  const spare = Math.max(0, MAX_CONTEXT_LINES - (core.end - core.start + 1));
  let start = Math.max(wide.start, core.start - Math.floor(spare / 2));
  const end = Math.min(wide.end, Math.max(core.end, start + MAX_CONTEXT_LINES - 1));
  start = Math.max(wide.start, Math.min(start, end - MAX_CONTEXT_LINES + 1));
  return { start, end };
}

const headingPath = (title: string): string[] => title.split(' > ');
const outerSymbol = (symbol: string): string => symbol.split(/\.|::|#/)[0]!;

/** Whether `c` belongs to the section or symbol that encloses `hit`. */
function sameSection(hit: ChunkSpan, c: ChunkSpan): boolean {
  if (hit.symbol) return c.symbol !== undefined && outerSymbol(c.symbol) === outerSymbol(hit.symbol);
  if (hit.kind === 'section') {
    const path = headingPath(hit.title);
    const parent = path.length > 1 ? path.slice(0, -1) : path;
    const other = headingPath(c.title);
    return c.kind === 'section' && other.length >= parent.length && parent.every((p, i) => other[i] === p);
  }
  return false;
}

/**
 * Pure. `chunks`: the file's chunks in order; `first`..`last`: the hit's chunks (indexes into
 * it). The line range of the contiguous run of chunks around the hit that share its enclosing
 * section or symbol (see the header); a hit with neither takes one chunk on each side.
 */
export function sectionRange(chunks: readonly ChunkSpan[], first: number, last: number): LineRange {
  const hit = chunks[first]!;
  const core = { start: hit.startLine, end: chunks[last]!.endLine };
  let a = first;
  let b = last;
  if (!hit.symbol && hit.kind !== 'section') {
    a = Math.max(0, first - 1);
    b = Math.min(chunks.length - 1, last + 1);
  } else {
    while (a > 0 && sameSection(hit, chunks[a - 1]!)) a--;
    while (b < chunks.length - 1 && sameSection(hit, chunks[b + 1]!)) b++;
  }
  return capRange({ start: Math.min(core.start, chunks[a]!.startLine), end: Math.max(core.end, chunks[b]!.endLine) }, core);
}

/** Validates a request's `context`: a whole number 0–MAX_CONTEXT_LINES or "section"; null when invalid. */
export function parseContext(value: unknown): HitContext | null | undefined {
  if (value === undefined || value === null || value === 0 || value === '0') return undefined;
  if (value === 'section') return 'section';
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_CONTEXT_LINES ? n : null;
}
