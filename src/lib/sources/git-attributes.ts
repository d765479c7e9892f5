/**
 * What a repository's own `.gitattributes` files say about its paths: `linguist-generated` and
 * `linguist-vendored`, the marks GitHub's language statistics read, so a fetch can skip what the
 * repository itself declares generated or vendored (and keep what it declares hand-written). Pure.
 *
 * Git's rules, which differ from .gitignore's: a pattern without a slash matches a file name at
 * any depth below the attributes file's folder, one with a slash is anchored to that folder; a
 * pattern naming a folder (`vendor/`, or `vendor` on the folder) does not reach the files inside
 * (`vendor/**` does); `!pattern` is forbidden and ignored. Per attribute, the last matching line
 * decides, and a deeper attributes file overrides its parents. `name`, `name=<value>` set it
 * (GitHub counts any value but `false` as set), `-name` and `name=false` unset it, `!name` makes it
 * unspecified again.
 */
import { Minimatch } from 'minimatch';

/** true: the repository marks the path; false: it explicitly un-marks it; absent: it says nothing. */
export interface LinguistMarks {
  generated?: boolean;
  vendored?: boolean;
}

/** A `.gitattributes` file's folder ('' for the root) and its text. */
export interface AttributesFile {
  dir: string;
  text: string;
}

type Mark = keyof LinguistMarks;

const ATTRIBUTES: Record<string, Mark> = { 'linguist-generated': 'generated', 'linguist-vendored': 'vendored' };

interface Rule {
  /** Folder of the attributes file, with a trailing slash ('' for the root). */
  base: string;
  matcher: Minimatch;
  /** undefined: `!name`, back to unspecified. */
  sets: [Mark, boolean | undefined][];
}

/** Git's own limit: longer lines in an attributes file are ignored. */
const MAX_LINE = 2048;

/** The C-style quoted form git allows for patterns with spaces (`"a b.js"`): the pattern and the rest of the line. */
function unquote(line: string): [string, string] | null {
  let out = '';
  for (let i = 1; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '"') return [out, line.slice(i + 1)];
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = line[++i];
    if (next === undefined) return null;
    const octal = /^[0-7]{3}/.exec(line.slice(i));
    if (octal) {
      out += String.fromCharCode(Number.parseInt(octal[0], 8));
      i += 2;
    } else out += ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[next] ?? next;
  }
  return null;
}

/** The linguist rules of one attributes file, in file order. */
export function parseAttributes(file: AttributesFile): Rule[] {
  const rules: Rule[] = [];
  const base = file.dir === '' ? '' : `${file.dir.replace(/\/+$/, '')}/`;
  for (const raw of file.text.split(/\r?\n/)) {
    if (raw.length > MAX_LINE) continue;
    const line = raw.replace(/^[ \t]+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('[attr]') || line.startsWith('!')) continue;
    let pattern: string;
    let rest: string;
    if (line.startsWith('"')) {
      const q = unquote(line);
      if (!q) continue;
      [pattern, rest] = q;
    } else {
      const at = line.search(/[ \t]/);
      pattern = at < 0 ? line : line.slice(0, at);
      rest = at < 0 ? '' : line.slice(at);
    }
    const sets: Rule['sets'] = [];
    for (const token of rest.split(/[ \t]+/)) {
      if (token === '') continue;
      const [, prefix, name, value] = /^([-!]?)([^=]+)(?:=(.*))?$/.exec(token) ?? [];
      const mark = name ? ATTRIBUTES[name] : undefined;
      if (!mark) continue;
      sets.push([mark, prefix === '!' ? undefined : prefix === '-' ? false : value !== 'false']);
    }
    // A folder pattern never reaches the files inside it, and files are all we ask about.
    if (sets.length === 0 || pattern === '' || pattern.endsWith('/')) continue;
    const anchored = pattern.includes('/');
    const glob = anchored ? pattern.replace(/^\//, '') : `**/${pattern}`;
    const matcher = new Minimatch(glob, { dot: true, nobrace: true, noext: true, nonegate: true, nocomment: true, platform: 'linux' });
    rules.push({ base, matcher, sets });
  }
  return rules;
}

/**
 * The marks of every path, from all attributes files of a tree (any order): a function, so a
 * caller asks only about the paths it meets. Files with no linguist rule cost nothing.
 */
export function linguistMarks(files: readonly AttributesFile[]): (path: string) => LinguistMarks {
  const depth = (dir: string): number => (dir === '' ? 0 : dir.split('/').length);
  const rules = [...files].sort((a, b) => depth(a.dir) - depth(b.dir)).flatMap(parseAttributes);
  if (rules.length === 0) return () => ({});
  return (path) => {
    const marks: LinguistMarks = {};
    for (const rule of rules) {
      if (!path.startsWith(rule.base) || !rule.matcher.match(path.slice(rule.base.length))) continue;
      for (const [mark, value] of rule.sets) {
        if (value === undefined) delete marks[mark];
        else marks[mark] = value;
      }
    }
    return marks;
  };
}
