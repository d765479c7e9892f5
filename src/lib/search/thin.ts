/**
 * Chunks with nothing to read (issue 26): a 60-byte stylesheet whose only line is a comment, an
 * empty `__init__.py`, a license header alone. BM25 loves them (a short doc matching one word
 * scores high), so the answer sets them after every chunk with content. Pure.
 */

/** Fewer letters and digits than this, once comments are gone, is nothing to read. */
export const THIN_CHARS = 12;

const BLOCK = /\/\*[\s\S]*?(\*\/|$)/g;
const HTML_COMMENT = /<!--[\s\S]*?(-->|$)/g;
const SLASHES = /(^|[^:\\])\/\/.*$/gm;
const HASH = /^\s*#.*$/gm;
const DASHES = /^\s*--.*$/gm;
/** Languages whose line comments start with `#` (and not a heading or a preprocessor line). */
const HASH_LANG = /\.(py|pyi|rb|sh|bash|zsh|ya?ml|toml|r|pl|ps1|cfg|conf|ini|gitignore|dockerignore|mk)$|(^|\/)(makefile|dockerfile)$/i;
const DASH_LANG = /\.(sql|lua|hs|elm)$/i;
const PROSE = /\.(md|mdx|markdown|rst|txt|adoc|html?)$/i;

/** The text without its comments, for the languages the path says. */
export function withoutComments(text: string, path: string): string {
  if (PROSE.test(path)) return text.replace(HTML_COMMENT, '');
  let t = text.replace(BLOCK, '').replace(HTML_COMMENT, '');
  if (HASH_LANG.test(path)) t = t.replace(HASH, '');
  else t = t.replace(SLASHES, '$1');
  if (DASH_LANG.test(path)) t = t.replace(DASHES, '');
  return t;
}

/** True when the chunk holds (almost) nothing but whitespace, punctuation and comments. */
export function isThin(text: string, path: string): boolean {
  const rest = withoutComments(text, path);
  let n = 0;
  for (const ch of rest) {
    if (/[\p{L}\p{N}]/u.test(ch) && ++n >= THIN_CHARS) return false;
  }
  return true;
}
