import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createTermProcessor,
  createTokenizer,
  DEFAULT_TOKENIZER,
  processTerm,
  tokenize,
  type TokenizerOptions,
} from '../../../src/lib/index/bm25/index.js';
import { regexParts, segmentParts, WORD } from '../../../src/lib/index/bm25/tokenize.js';

/** What the index stores for a text: raw tokens through processTerm, nulls dropped. */
const terms = (text: string): string[] =>
  tokenize(text)
    .map(processTerm)
    .filter((t): t is string => t !== null);

const raw = (text: string): string[] => tokenize(text).map((t) => t.toLowerCase());

describe('tokenize', () => {
  it('splits camelCase and keeps the joined identifier', () => {
    expect(raw('parseConfig')).toEqual(['parse', 'config', 'parseconfig']);
    expect(raw('getX')).toEqual(['get', 'x', 'getx']);
  });

  it('splits PascalCase with acronyms at the acronym boundary', () => {
    expect(raw('parseHTTPResponse')).toEqual(['parse', 'http', 'response', 'parsehttpresponse']);
    expect(raw('HTMLParser')).toEqual(['html', 'parser', 'htmlparser']);
    expect(raw('XMLHttpRequest')).toEqual(['xml', 'http', 'request', 'xmlhttprequest']);
    expect(raw('HTTP')).toEqual(['http']);
    expect(raw('ParseConfig')).toEqual(['parse', 'config', 'parseconfig']);
  });

  it('splits snake_case and SCREAMING_CASE, ignoring edge underscores', () => {
    expect(raw('parse_config')).toEqual(['parse', 'config', 'parseconfig']);
    expect(raw('MAX_RETRY_COUNT')).toEqual(['max', 'retry', 'count', 'maxretrycount']);
    expect(raw('__init__')).toEqual(['init']);
    expect(raw('_private_thing')).toEqual(['private', 'thing', 'privatething']);
  });

  it('splits kebab-case, dotted names and Rust paths into parts', () => {
    expect(raw('parse-config')).toEqual(['parse', 'config']);
    expect(raw('os.path.join')).toEqual(['os', 'path', 'join']);
    expect(raw('std::fs::read_to_string')).toEqual(['std', 'fs', 'read', 'to', 'string', 'readtostring']);
  });

  it('splits file paths into segments and extensions', () => {
    expect(raw('src/lib/fooBar.ts')).toEqual(['src', 'lib', 'foo', 'bar', 'foobar', 'ts']);
    expect(raw('./a/b.md')).toEqual(['a', 'b', 'md']);
  });

  it('can keep a compound word whole (option)', () => {
    const tok = createTokenizer({ ...DEFAULT_TOKENIZER, keepCompounds: true });
    expect(tok('src/lib/foo.ts')).toEqual(['src', 'lib', 'foo', 'ts', 'src/lib/foo.ts']);
    expect(tok('v1.2.3')).toContain('v1.2.3');
  });

  it('separates letters from digits and keeps the joined form', () => {
    expect(raw('sha256')).toEqual(['sha', '256', 'sha256']);
    expect(raw('utf8_decode')).toEqual(['utf', '8', 'decode', 'utf8decode']);
    expect(raw('1,000 genomes in 2010')).toEqual(['1', '000', 'genomes', 'in', '2010']);
    expect(raw('1/2000')).toEqual(['1', '2000']);
    expect(raw('3.14')).toEqual(['3', '14']);
  });

  it('keeps digits on the word when digit splitting is off', () => {
    const tok = createTokenizer({ ...DEFAULT_TOKENIZER, splitDigits: false });
    expect(tok('utf8_decode')).toEqual(['utf8', 'decode', 'utf8decode']);
    expect(tok('HTTP2Server')).toEqual(['HTTP2', 'Server', 'HTTP2Server']);
    expect(tok('2fast')).toEqual(['2', 'fast', '2fast']);
  });

  it('handles unicode words, accents and caseless scripts', () => {
    expect(raw('Zürich naïve café')).toEqual(['zürich', 'naïve', 'café']);
    expect(raw('Ελληνικά κείμενα')).toEqual(['ελληνικά', 'κείμενα']);
    expect(raw('日本語 テキスト')).toEqual(['日本語', 'テキスト']);
    // combining accent (NFD) stays inside the word
    expect(raw('cafe\u0301')).toEqual(['cafe\u0301']);
  });

  it('treats punctuation and whitespace as separators', () => {
    expect(raw('foo(bar, baz); x = {"a": 1}')).toEqual(['foo', 'bar', 'baz', 'x', 'a', '1']);
    expect(raw("it's end. Next")).toEqual(['it', 's', 'end', 'next']);
    expect(raw('  \n\t ')).toEqual([]);
  });

  it('gives the same tokens on the fast path as on the general path', () => {
    // Plain ASCII words skip the splitting regexes; joined with a connector they take the slow path.
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), (word) => {
        const slow = tokenize(`${word}-${word}`);
        const fast = [...tokenize(word), ...tokenize(word)];
        expect(slow).toEqual(fast);
      }),
    );
  });

  it('cuts ASCII identifiers into the parts the Unicode regexes cut, digits split or not', () => {
    // ASCII segments are cut by a hand-written scanner; it must match the PART regex exactly.
    const segment = fc.stringMatching(/^[A-Za-z0-9_]{1,16}$/);
    const tricky = fc.constantFrom('HTTPResponse', 'ABc', 'aB', 'A', 'x9Y', 'utf8', 'HTTP2Server', '__a__B_', '_', '9a', 'AB9cd', 'getURLs2');
    fc.assert(
      fc.property(fc.oneof(segment, tricky), fc.boolean(), (s, splitDigits) => {
        const byRegex: string[] = [];
        regexParts(s, splitDigits, byRegex);
        expect(segmentParts(s, splitDigits)).toEqual(byRegex);
      }),
      { numRuns: 2000 },
    );
  });

  it("finds exactly WORD's words, whatever mix of ASCII and other scripts surrounds them", () => {
    // The tokenizer scans ASCII itself and lets WORD take over at any other character.
    const oracle = (text: string, options: TokenizerOptions): string[] => {
      const out: string[] = [];
      for (const word of text.match(WORD) ?? []) {
        const segments = word.split(/::|[-./]/);
        for (const segment of segments) {
          const parts = segmentParts(segment, options.splitDigits);
          out.push(...parts);
          if (options.joinIdentifiers && parts.length > 1) out.push(parts.join(''));
        }
        if (options.keepCompounds && segments.length > 1) out.push(word);
      }
      return out;
    };
    const piece = fc.constantFrom(
      'a', 'Z', 'parseHTTPResponse', 'snake_case', '_', '9', 'v2', '-', '.', '/', ':', '::', ' ', '\n', '(', '"',
      'é', 'Größe', '東京', '\u0301', '—', '“', '𝒜', '😀', 'ǅ', '٣', '·',
    );
    const options = fc.record({ joinIdentifiers: fc.boolean(), keepCompounds: fc.boolean(), splitDigits: fc.boolean() });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), options, (pieces, opts) => {
        const text = pieces.join('');
        expect(createTokenizer(opts)(text)).toEqual(oracle(text, opts));
      }),
      { numRuns: 3000 },
    );
  });

  it('never emits empty tokens', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        for (const t of tokenize(text)) expect(t.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('processTerm', () => {
  it('lowercases and Porter-stems English words', () => {
    expect(processTerm('Running')).toBe('run');
    expect(processTerm('configurations')).toBe('configur');
    expect(processTerm('configure')).toBe('configur');
  });

  it('drops blobs longer than a SHA-256 but keeps hashes', () => {
    const sha = 'a'.repeat(64);
    expect(processTerm(sha)).toBe(sha);
    expect(processTerm('b'.repeat(65))).toBeNull();
  });

  it('drops stop words', () => {
    expect(processTerm('The')).toBeNull();
    expect(processTerm('with')).toBeNull();
  });

  it('leaves digits, mixed and non-ASCII words unstemmed', () => {
    expect(processTerm('2010')).toBe('2010');
    expect(processTerm('sha256')).toBe('sha256');
    expect(processTerm('Zürich')).toBe('zürich');
  });

  it('can run without stemming or stop words (options)', () => {
    const p = createTermProcessor({ stem: false, stopWords: false, minLength: 2 });
    expect(p('Running')).toBe('running');
    expect(p('the')).toBe('the');
    expect(p('x')).toBeNull();
    expect(p('7')).toBe('7');
  });

  it('query and document sides agree across identifier styles', () => {
    const want = terms('parseConfig');
    expect(terms('parse_config')).toEqual(want);
    expect(terms('ParseConfig')).toEqual(want);
    expect(terms('PARSE_CONFIG')).toEqual(want);
    expect(want).toContain('pars');
    expect(want).toContain('config');
  });
});

describe('the term processor without its memo', () => {
  it('gives what the memoised one gives, asked once or many times', () => {
    const once = createTermProcessor(undefined, { memo: false });
    const words = tokenize('Running runners ran the parseConfig of HTTP2 servers; the THE a x 42 ééé Überlänge running');
    for (let round = 0; round < 3; round++) expect(words.map(once)).toEqual(words.map(processTerm));
    fc.assert(fc.property(fc.string(), (w) => once(w) === processTerm(w)));
  });
});
