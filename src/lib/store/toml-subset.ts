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
const ARRAY_ITEM = /^[ \t]*("[^"\\\x00-\x08\x0a-\x1f\x7f]*")[ \t]*(,?)[ \t]*$/;
const ARRAY_CLOSE = /^[ \t]*\][ \t]*$/;

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

/** Parsed TOML for texts of the subset above; null means "ask smol-toml". */
export function parseTomlSubset(text: string): TomlTable | null {
  if (text.includes('\r')) return null;
  const lines = text.split('\n');
  const root: TomlTable = Object.create(null) as TomlTable;
  // How each name of the root was made: a key, a [table] or an [[array]] of tables.
  const made = new Map<string, 'value' | 'table' | 'array'>();
  let table = root;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
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
      // One string per line; a comma between items, optional after the last.
      const items: string[] = [];
      let comma = true;
      for (i++; ; i++) {
        if (i >= lines.length) return null;
        if (ARRAY_CLOSE.test(lines[i]!)) break;
        const item = ARRAY_ITEM.exec(lines[i]!);
        if (!item || !comma) return null;
        items.push(item[1]!.slice(1, -1));
        comma = item[2] === ',';
      }
      value = items;
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
