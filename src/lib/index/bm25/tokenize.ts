/**
 * Code-aware tokenisation for the lexical (BM25) index. One pipeline serves prose and code, and
 * documents and queries go through the same two functions, so `parseConfig` in a query meets
 * `parse_config`, `ParseConfig` and `parse-config` in a document.
 *
 * tokenize: text -> raw tokens (identifier parts plus the joined identifier, path parts plus the
 * whole path); processTerm: raw token -> index term (lowercase, stop words out, Porter stem).
 * The defaults were chosen by bench/lexical-quality.ts on SciFact (prose) and CoSQA (code).
 */
import { stemmer } from 'stemmer';

export interface TokenizerOptions {
  /** Also emit a multi-part identifier joined (`parse_config` -> `parseconfig`). */
  joinIdentifiers: boolean;
  /** Also emit a dotted/slashed/hyphenated word whole (`src/lib/foo.ts`, `1.2.3`). */
  keepCompounds: boolean;
  /** Split letters from digits inside a word (`sha256` -> `sha`, `256`). */
  splitDigits: boolean;
}

export interface TermOptions {
  stopWords: boolean;
  stem: boolean;
  /** Terms shorter than this are dropped (digits and KEEP_SHORT excepted). */
  minLength: number;
}

export const DEFAULT_TOKENIZER: TokenizerOptions = {
  joinIdentifiers: true,
  keepCompounds: false,
  splitDigits: true,
};

export const DEFAULT_TERMS: TermOptions = {
  stopWords: true,
  stem: true,
  minLength: 1,
};

/**
 * Lucene's English stop set (the one the published BM25 baselines use). Kept short on purpose:
 * words like `not`, `if`, `for` are removed from queries too, and BM25's IDF already discounts
 * the rest; a long list would eat meaningful words in code (`self`, `new`, `type`).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it',
  'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they',
  'this', 'to', 'was', 'will', 'with',
]);

/** Short words kept even when minLength would drop them (language names). */
const KEEP_SHORT: ReadonlySet<string> = new Set(['c', 'r']);

/** Longer terms are blobs (base64, minified code); 64 still fits a SHA-256 in hex. */
const MAX_TERM_LENGTH = 64;

/**
 * A word: letters, digits, marks and underscores, optionally chained by single `-`, `.`, `/` or
 * `::` (paths, dotted names, kebab-case, Rust paths). Everything else separates words. Exported
 * for the tests, which hold the tokenizer's ASCII scanner to it.
 */
export const WORD = /[\p{L}\p{N}\p{M}_]+(?:(?:::|[-./])[\p{L}\p{N}\p{M}_]+)*/gu;
const CONNECTOR = /::|[-./]/;
/**
 * Parts of one segment: an uppercase run not followed by lowercase (acronym: `HTTP` in
 * `parseHTTPResponse`), an optionally capitalised lowercase run, a digit run, or any other
 * letters (scripts without case).
 */
const PART = /\p{Lu}[\p{Lu}\p{M}]*(?![\p{Ll}\p{M}])|\p{Lu}?[\p{Ll}\p{M}]+|\p{N}+|[^\p{Lu}\p{Ll}\p{N}_]+/gu;
const DIGITS = /^\p{N}+$/u;

/** The parts of one segment of a word (no connectors in it): identifier words, digit runs. */
export function segmentParts(segment: string, splitDigits: boolean): string[] {
  const parts: string[] = [];
  if (isAsciiWord(segment)) asciiParts(segment, splitDigits, parts);
  else regexParts(segment, splitDigits, parts);
  return parts;
}

/** segmentParts by the PART regex: any script. Exported for the tests, which hold asciiParts to it. */
export function regexParts(segment: string, splitDigits: boolean, parts: string[]): void {
  for (const piece of segment.split('_')) {
    if (piece === '') continue;
    const first = parts.length;
    for (const m of piece.matchAll(PART)) {
      const part = m[0];
      // Without digit splitting a digit run sticks to the part before it (`utf8`, `HTTP2`).
      if (!splitDigits && parts.length > first && DIGITS.test(part)) {
        parts[parts.length - 1] += part;
      } else {
        parts.push(part);
      }
    }
  }
}

/** Only ASCII letters, digits and underscores. */
function isAsciiWord(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(isUpper(c) || isLower(c) || isDigit(c) || c === 95)) return false;
  }
  return true;
}

const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * segmentParts of an ASCII segment (isAsciiWord) without the Unicode regexes, which were most of
 * a create's tokenizing time. Exactly PART's matches over each `_`-separated piece: an uppercase
 * run not followed by a lowercase letter, else (it is, and its last letter starts the next part)
 * the run but its last letter; an optionally capitalised lowercase run; a digit run. In ASCII
 * letters and digits nothing is left between matches.
 */
function asciiParts(segment: string, splitDigits: boolean, parts: string[]): void {
  const n = segment.length;
  let first = parts.length; // the first part of the current piece
  let i = 0;
  while (i < n) {
    const c = segment.charCodeAt(i);
    let end = i + 1;
    if (c === 95) {
      first = parts.length;
      i = end;
      continue;
    }
    if (isDigit(c)) {
      while (end < n && isDigit(segment.charCodeAt(end))) end++;
      // Without digit splitting a digit run sticks to the part before it (`utf8`, `HTTP2`).
      if (!splitDigits && parts.length > first) {
        parts[parts.length - 1] += segment.slice(i, end);
        i = end;
        continue;
      }
    } else if (isUpper(c)) {
      while (end < n && isUpper(segment.charCodeAt(end))) end++;
      if (end < n && isLower(segment.charCodeAt(end))) {
        if (end - i > 1) end--; // `HTTPResponse`: `HTTP`, then `Response`
        else while (end < n && isLower(segment.charCodeAt(end))) end++; // `Response`
      }
    } else {
      while (end < n && isLower(segment.charCodeAt(end))) end++;
    }
    parts.push(segment.slice(i, end));
    i = end;
  }
}

/** `word`, `Word`, `WORD` or `123` in ASCII: a single part whatever the options. */
function isPlain(word: string): boolean {
  const first = word.charCodeAt(0);
  if (first >= 48 && first <= 57) {
    for (let i = 1; i < word.length; i++) {
      const c = word.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
    return true;
  }
  const upperFirst = first >= 65 && first <= 90;
  if (!upperFirst && !(first >= 97 && first <= 122)) return false;
  if (word.length === 1) return true;
  // After the first letter: all lowercase, or (for an uppercase start) all uppercase.
  const second = word.charCodeAt(1);
  const lo = upperFirst && second >= 65 && second <= 90 ? 65 : 97;
  for (let i = 1; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < lo || c > lo + 25) return false;
  }
  return true;
}

export function createTokenizer(options: TokenizerOptions = DEFAULT_TOKENIZER): (text: string) => string[] {
  const { keepCompounds } = options;
  const addSegment = segmentTokenizer(options);
  const addWord = (word: string, tokens: string[]): void => {
    // Fast path: most words in prose and code are one plain part; skip the splitting.
    if (isPlain(word)) {
      tokens.push(word);
      return;
    }
    const segments = word.split(CONNECTOR);
    for (const segment of segments) addSegment(segment, tokens);
    if (keepCompounds && segments.length > 1) tokens.push(word);
  };
  return (text: string): string[] => {
    const tokens: string[] = [];
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128 && !isAsciiWordChar(c)) {
        i++;
        continue;
      }
      // The words of WORD's matches, found by scanning ASCII (WORD's Unicode classes cost as much
      // as all the rest of tokenizing); from any other character on, WORD itself finds the word.
      const end = c < 128 ? asciiWordEnd(text, i) : -1;
      if (end >= 0) {
        addWord(text.slice(i, end), tokens);
        i = end;
        continue;
      }
      // Shared, but nothing runs between setting lastIndex and exec().
      WORD.lastIndex = i;
      const m = WORD.exec(text);
      if (m === null) break;
      addWord(m[0], tokens);
      i = WORD.lastIndex;
    }
    return tokens;
  };
}

/** Appends the raw tokens of one segment (a run of word characters: no connector) to `tokens`. */
function segmentTokenizer(options: TokenizerOptions): (segment: string, tokens: string[]) => void {
  const { joinIdentifiers, splitDigits } = options;
  return (segment: string, tokens: string[]): void => {
    if (isPlain(segment)) {
      tokens.push(segment);
      return;
    }
    const parts = segmentParts(segment, splitDigits);
    for (const part of parts) tokens.push(part);
    if (joinIdentifiers && parts.length > 1) tokens.push(parts.join(''));
  };
}

/**
 * A maximal run of word characters (WORD's class). With the default options (compounds not kept)
 * a word's tokens are its runs' tokens in turn (segmentTokens), so tokenize(text) is segmentTokens
 * of each of text's runs: the BM25 counter (term-count.ts) looks its terms up by run.
 */
export const RUN = /[\p{L}\p{N}\p{M}_]+/gu;

/** The raw tokens of a run (RUN's match) with the default options, appended to `tokens`. */
export const segmentTokens: (segment: string, tokens: string[]) => void = segmentTokenizer(DEFAULT_TOKENIZER);

export const isAsciiWordChar = (c: number): boolean => isLower(c) || isUpper(c) || isDigit(c) || c === 95;

/**
 * End of WORD's match at `start` (an ASCII word character) when the match is all ASCII, else -1
 * (a non-ASCII character where the word or a connector's next word would go on: WORD decides).
 * WORD is greedy: word characters, then as long as they follow, a connector (`::`, `-`, `.`,
 * `/`) and more word characters.
 */
function asciiWordEnd(text: string, start: number): number {
  const n = text.length;
  let end = start + 1;
  for (;;) {
    while (end < n && isAsciiWordChar(text.charCodeAt(end))) end++;
    if (end === n) return end;
    const d = text.charCodeAt(end);
    if (d >= 128) return -1;
    const connector = d === 45 || d === 46 || d === 47 ? 1 : d === 58 && text.charCodeAt(end + 1) === 58 ? 2 : 0;
    if (connector === 0 || end + connector >= n) return end;
    const e = text.charCodeAt(end + connector);
    if (e >= 128) return -1;
    if (!isAsciiWordChar(e)) return end;
    end += connector + 1;
  }
}

export function createTermProcessor(options: TermOptions = DEFAULT_TERMS, { memo = true } = {}): (term: string) => string | null {
  const { stopWords, stem, minLength } = options;
  // Stemming dominates indexing time and vocabularies are small: memoise (bounded).
  const cache = new Map<string, string | null>();
  return (term: string): string | null => {
    const cached = memo ? cache.get(term) : undefined;
    if (cached !== undefined) return cached;
    let out: string | null = term.toLowerCase();
    if (out.length > MAX_TERM_LENGTH) out = null;
    else if (out.length < minLength && !KEEP_SHORT.has(out) && !DIGITS.test(out)) out = null;
    else if (stopWords && STOP_WORDS.has(out)) out = null;
    // Porter only knows English letters; identifiers with digits or other scripts stay as they are.
    else if (stem && /^[a-z]+$/.test(out)) out = stemmer(out);
    if (!memo) return out;
    if (cache.size > 200_000) cache.clear();
    cache.set(term, out);
    return out;
  };
}

/** Splits text into raw tokens; feed each through processTerm. */
export const tokenize: (text: string) => string[] = createTokenizer(DEFAULT_TOKENIZER);

/** Normalises one raw token into an index term, or null to drop it. */
export const processTerm: (term: string) => string | null = createTermProcessor(DEFAULT_TERMS);

/**
 * processTerm without the memo, for a segment build: the build's vocabulary asks only for the
 * tokens of a run of word characters it has not met (term-count.ts), and a memo of them kept
 * every token of a create alive (~3 MB of strings and map in a chunk thread on Dioxus) to save
 * less CPU than it cost.
 */
export const processTermUnmemoised: (term: string) => string | null = createTermProcessor(DEFAULT_TERMS, { memo: false });
