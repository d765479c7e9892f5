/**
 * The TOML that tkoma-ref writes, read without a general parser. A topic.md of a large topic
 * lists every file (5,000 lines at SciFact scale), and parsing that with smol-toml took about a
 * tenth of a cold search; so did loading smol-toml's modules. This reader accepts a strict subset:
 * blank and comment lines, `[table]` and `[[array]]` headers, and `key = value` lines with a bare
 * key and a value that is a basic string without escapes, a plain decimal integer or float, a
 * boolean, or an array of such strings (inline, or one per line as serializeTopicMd writes it).
 *
 * Anything else (escapes, dotted or quoted keys, dates, trailing comments, a redefined key or
 * table, …) answers null, and the caller parses the text with smol-toml: every text gets exactly
 * smol-toml's value or error, and the common one is read many times faster. Tables are
 * null-prototype objects, as smol-toml makes them.
 */

export type TomlTable = Record<string, unknown>;

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const KEY_VALUE = /^[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(.*?)[ \t]*$/;
const HEADER = /^[ \t]*(\[\[?)[ \t]*([A-Za-z0-9_-]+)[ \t]*(\]\]?)[ \t]*$/;
/** Blank, or a comment without the control characters TOML forbids in comments. */
const VOID = /^[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?$/;
/** A basic string with no escape, quote or control character (tab is allowed). */
const STRING = /^"([^"\\\x00-\x08\x0a-\x1f\x7f]*)"$/;
/** Up to 15 digits: always a safe integer, read as smol-toml reads it. */
const INTEGER = /^-?(?:0|[1-9][0-9]{0,14})$/;
const FLOAT = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
const ARRAY_OPEN = /^\[[ \t]*$/;
/**
 * The lines of an array opened by `key = [`: one basic string per line (no escape, quote or
 * control character but tab), a comma after every item but the last (optional there), then a
 * `]` line. Checked by two sticky regexes rather than per line: runs of up to 1,000 lines with a
 * comma (a longer run would grow the regex engine's backtrack stack with the array, and a few
 * million lines overflow it), then the end: the last item if it has no comma, and the `]` line.
 */
const ITEM_LINES = /(?:[ \t]*"[^"\\\x00-\x08\x0a-\x1f\x7f]*"[ \t]*,[ \t]*\n){1,1000}/y;
const ARRAY_END = /((?:[ \t]*"[^"\\\x00-\x08\x0a-\x1f\x7f]*"[ \t]*\n)?)[ \t]*\][ \t]*(?:\n|$)/y;

/** Not a value this subset reads. */
const NO = Symbol('no');

function scalar(text: string): unknown {
  const s = STRING.exec(text);
  if (s) return s[1];
  if (INTEGER.test(text)) return text === '-0' ? NO : Number(text);
  if (FLOAT.test(text)) return text.startsWith('-0') && Number(text) === 0 ? NO : Number.parseFloat(text);
  if (text === 'true') return true;
  if (text === 'false') return false;
  return NO;
}

const trimBlanks = (s: string): string => s.replace(/^[ \t]+|[ \t]+$/g, '');

/** `[]` or `["a", "b"]` on one line: strings only, single commas, an optional trailing one. */
function inlineArray(text: string): string[] | typeof NO {
  const whole = /^\[(.*)\]$/.exec(text);
  if (!whole) return NO;
  const inner = trimBlanks(whole[1]!);
  if (inner === '') return [];
  const parts = inner.split(',');
  if (parts.length > 1 && trimBlanks(parts[parts.length - 1]!) === '') parts.pop();
  const out: string[] = [];
  for (const p of parts) {
    const m = STRING.exec(trimBlanks(p));
    if (!m) return NO;
    out.push(m[1]!);
  }
  return out;
}

/**
 * The strings of item lines that ITEM_LINES and ARRAY_END accepted. Without the last item's comma
 * they are JSON, and JSON.parse reads them in one native pass: in a cold process, where nothing
 * is compiled yet, any JavaScript loop over 5,000 lines costs several times more. The one thing
 * such lines may hold that JSON refuses is a tab inside a string; then each item is the text
 * between a line's two quotes.
 */
function lineArrayItems(lines: string): string[] {
  try {
    return JSON.parse(`[${lines.slice(0, lines.lastIndexOf('"') + 1)}]`) as string[];
  } catch {
    return lines.split('"').filter((_, k) => k % 2 === 1);
  }
}

/**
 * A multi-line array of strings, checked (ITEM_LINES, ARRAY_END) but not yet made strings: what
 * parseTomlSubset gives for the root keys its caller names as `lazy`. A topic's `files` list is
 * 207k lines at 300k chunks and a search never reads it; making the strings took ~0.2 s.
 */
export class LineArray {
  private made: string[] | null = null;

  constructor(private readonly lines: string) {}

  /** The strings (made once; callers copy before changing them). */
  items(): readonly string[] {
    return (this.made ??= lineArrayItems(this.lines));
  }

  /** How many strings: one per line (every item line ends with one, the last included). */
  count(): number {
    if (this.made) return this.made.length;
    let n = 0;
    for (let at = this.lines.indexOf('\n'); at >= 0; at = this.lines.indexOf('\n', at + 1)) n++;
    return n;
  }
}

/**
 * Parsed TOML for texts of the subset above; null means "ask smol-toml". Multi-line arrays of the
 * root keys in `lazy` come back as LineArray.
 */
export function parseTomlSubset(text: string, lazy?: ReadonlySet<string>): TomlTable | null {
  if (text.includes('\r')) return null;
  const root: TomlTable = Object.create(null) as TomlTable;
  // How each name of the root was made: a key, a [table] or an [[array]] of tables.
  const made = new Map<string, 'value' | 'table' | 'array'>();
  let table = root;
  // Line by line without splitting the whole text: a large array's lines are never cut apart.
  for (let pos = 0; pos <= text.length; ) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, end);
    pos = end + 1;
    if (VOID.test(line)) continue;
    const header = HEADER.exec(line);
    if (header) {
      const [, open, name, close] = header as unknown as [string, string, string, string];
      if (open.length !== close.length || name === '__proto__') return null;
      const before = made.get(name);
      if (open === '[') {
        if (before !== undefined) return null; // a table is defined once, and not over a key
        made.set(name, 'table');
        table = root[name] = Object.create(null) as TomlTable;
      } else {
        if (before !== undefined && before !== 'array') return null;
        made.set(name, 'array');
        const list = (root[name] ??= []) as TomlTable[];
        list.push((table = Object.create(null) as TomlTable));
      }
      continue;
    }
    const kv = KEY_VALUE.exec(line);
    if (!kv) return null;
    const [, key, raw] = kv as unknown as [string, string, string];
    if (!BARE_KEY.test(key) || key === '__proto__' || Object.hasOwn(table, key)) return null;
    if (table === root) made.set(key, 'value');
    let value: unknown;
    if (ARRAY_OPEN.test(raw)) {
      // Where the lines with a comma end; then the last item without one, and the `]`.
      let at = pos;
      for (ITEM_LINES.lastIndex = at; ITEM_LINES.test(text); ) at = ITEM_LINES.lastIndex;
      ARRAY_END.lastIndex = at;
      const last = ARRAY_END.exec(text);
      if (!last) return null;
      const lines = text.slice(pos, at + last[1]!.length);
      value = table === root && lazy?.has(key) ? new LineArray(lines) : lineArrayItems(lines);
      // A `]` on the last line without a newline leaves pos at the end: one more, empty, line.
      pos = ARRAY_END.lastIndex;
    } else if (raw.startsWith('[')) {
      value = inlineArray(raw);
    } else {
      value = scalar(raw);
    }
    if (value === NO) return null;
    table[key] = value;
  }
  return root;
}
