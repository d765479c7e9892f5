import { describe, expect, it } from 'vitest';

import { processTerm, tokenize } from '../../src/lib/index/bm25/index.js';
import { lineWords, termGeneration } from '../../src/lib/search/line-words.js';
import { bodySnippet, cutLine, lineMatches, makeSnippet, plainWord, queryTerms, scanLines, snippetOfLines } from '../../src/lib/search/snippet.js';

describe('makeSnippet', () => {
  it('returns a chunk that fits unchanged', () => {
    const s = makeSnippet('short text', queryTerms('text'), 100);
    expect(s).toEqual({ text: 'short text', fromLine: 0, toLine: 0, truncated: false });
  });

  it('picks the window of whole lines with the most query terms, within maxChars', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} filler words here`);
    lines[25] = 'here we call parse_config on the file';
    lines[26] = 'and parseConfig again';
    const text = lines.join('\n');
    const s = makeSnippet(text, queryTerms('parseConfig'), 120);
    expect(s.text.length).toBeLessThanOrEqual(120);
    expect(s.text).toContain('parse_config');
    expect(s.text).toContain('parseConfig again');
    expect(s.truncated).toBe(true);
    expect(s.fromLine).toBeLessThanOrEqual(25);
    expect(s.toLine).toBeGreaterThanOrEqual(26);
  });

  it('starts at the top when nothing matches', () => {
    const text = Array.from({ length: 30 }, (_, i) => `row ${i}`).join('\n');
    const s = makeSnippet(text, queryTerms('zebra'), 30);
    expect(s.fromLine).toBe(0);
    expect(s.text.startsWith('row 0')).toBe(true);
    expect(s.text.length).toBeLessThanOrEqual(30);
  });

  it('cuts a single overlong line', () => {
    const s = makeSnippet('x'.repeat(500), new Set(), 50);
    expect(s.text.length).toBe(50);
    expect(s.text.endsWith('…')).toBe(true);
  });
});

describe('makeSnippet: the right lines', () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} has nothing of interest`);

  it('prefers the window holding more distinct terms over one repeating a single term', () => {
    const lines = filler(60);
    lines[5] = 'cache cache cache cache';
    lines[40] = 'cache eviction policy';
    const s = makeSnippet(lines.join('\n'), queryTerms('cache eviction policy'), 200);
    expect(s.text).toContain('cache eviction policy');
  });

  it('keeps a little lead above the first match and fills below it, not above', () => {
    const lines = filler(80);
    lines[50] = 'fn restart_resource() {';
    const s = makeSnippet(lines.join('\n'), queryTerms('restart resource'), 300);
    expect(s.fromLine).toBe(48);
    expect(s.toLine).toBeGreaterThan(51);
    expect(s.text.split('\n')[2]).toBe('fn restart_resource() {');
  });

  it('shows the matching lines of a long text, not its first lines', () => {
    const lines = filler(100);
    lines[70] = 'The closure reruns when a signal changes; call restart() by hand.';
    const s = makeSnippet(lines.join('\n'), queryTerms('restart the closure'), 400);
    expect(s.fromLine).toBeGreaterThan(60);
    expect(s.text).toContain('restart()');
  });
});

describe('long lines', () => {
  it('cuts a paragraph on one line around its first match, on a word boundary, with ellipses', () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    words[200] = 'eviction';
    const line = words.join(' ');
    const s = makeSnippet(`# Title\n\n${line}`, queryTerms('eviction'), 200);
    expect(s.text.length).toBeLessThanOrEqual(200);
    expect(s.text).toContain('eviction');
    expect(s.text.startsWith('…word')).toBe(true);
    expect(s.text.endsWith('…')).toBe(true);
    expect(s.fromLine).toBe(2);
  });

  it('cutLine keeps short lines and never exceeds max', () => {
    expect(cutLine('short', 0, 50)).toBe('short');
    const line = 'a '.repeat(200);
    for (const at of [0, 10, 150, 399]) expect(cutLine(line, at, 60).length).toBeLessThanOrEqual(60);
    expect(cutLine(line, 0, 60).startsWith('a a')).toBe(true);
  });
});

describe('lineMatches', () => {
  /** What tokenising each whole line finds: the shortcut must find the same. */
  const naive = (lines: string[], terms: Set<string>) => {
    const order = [...terms];
    return lines.map((l) => tokenize(l).flatMap((t) => {
      const p = processTerm(t);
      return p && terms.has(p) ? [order.indexOf(p)] : [];
    }));
  };

  it('finds what tokenising every line finds: stems, camelCase, snake_case, paths, digits', () => {
    const lines = [
      'Running the runner runs fast',
      'call parseConfig(path) then parse_config again',
      'see src/lib/config.ts and ParseHTTPResponse',
      'sha256 of the ponies, skies and relational happiness',
      'nothing here',
      'Ünïcödé words: café, naïve; Straße',
      'RELATIONALLY generalization conditional',
      '',
    ];
    for (const q of ['run', 'parseConfig', 'config http response', 'sha256 pony sky relate happy', 'cafe naive strasse', 'relational generalize condition', 'parse_config']) {
      const terms = queryTerms(q);
      expect(lineMatches(lines, terms), q).toEqual(naive(lines, terms));
    }
  });
});

describe('scanLines: one pass for all probes', () => {
  /**
   * The scan it replaced, occurrence by occurrence: every probe's occurrences sorted, each one
   * past the last counted run widened to its run and tokenised. The single-pass scan (and its
   * caches) must give the same matches and first positions, whatever the probes.
   */
  const RUN = /[\p{L}\p{N}\p{M}_\-./:]/u;
  const reference = (lines: string[], terms: Set<string>) => {
    const order = [...terms];
    const probes = [...new Set(order.map((t) => t.slice(0, Math.min(3, Math.max(1, t.length - 1)))))];
    const firstAt = lines.map(() => -1);
    const termsOf = (text: string) => tokenize(text).flatMap((t) => {
      const p = processTerm(t);
      const i = p ? order.indexOf(p) : -1;
      return i >= 0 ? [i] : [];
    });
    const matches = lines.map((line, n) => {
      const lower = line.toLowerCase();
      if (lower.length !== line.length) {
        const out = termsOf(line);
        if (out.length > 0) firstAt[n] = 0;
        return out;
      }
      const at: number[] = [];
      for (const p of probes) for (let i = lower.indexOf(p); i >= 0; i = lower.indexOf(p, i + 1)) at.push(i);
      at.sort((x, y) => x - y);
      const out: number[] = [];
      let done = -1;
      for (const i of at) {
        if (i < done) continue;
        let a = i;
        while (a > 0 && RUN.test(line[a - 1]!)) a--;
        let b = i;
        while (b < line.length && RUN.test(line[b]!)) b++;
        const found = termsOf(line.slice(a, b));
        out.push(...found);
        if (found.length > 0 && firstAt[n]! < 0) firstAt[n] = a;
        done = b;
      }
      return out;
    });
    return { matches, firstAt };
  };

  /** A small deterministic generator (mulberry32), so a failure names its seed. */
  const rng = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const WORDS = ['p53', 'P53', 'protein', 'Proteins', 'cell', 'cells.', 'CD4+', 'a', 'A', 'an', 'x', 'x-ray', 'IL-6', 'mRNA', 'parseConfig', 'parse_config', 'src/lib/a.ts', 'v1.2.3', 'std::io', '2', '2019', 'pony', 'ponies', 'Σοφία', 'ΟΔΟΣ', "ΟΔΟΣ'Α", 'İstanbul', '𝐀𝐁c', '𝐀x', 'café', 'naïve', 'HTTPServer', 'é', '_x_', 'a_b_c', 'abc'];
  const SEPARATORS = [' ', ' ', ' ', ', ', '; ', '(', ')', '\'', '"', ' — ', '\t'];

  it('agrees with the occurrence-by-occurrence scan on generated lines', () => {
    const next = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        Array.from({ length: Math.floor(next() * 30) }, () => pick(WORDS) + pick(SEPARATORS)).join(''),
      );
      const question = Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(WORDS)).join(' ');
      const terms = queryTerms(question);
      const want = reference(lines, terms);
      expect(scanLines(lines, terms), `round ${round}: ${question}`).toEqual(want);
      // The words a chunk cache keeps (some of them: the gaps are found again) read the same.
      const known = { generation: termGeneration(), lines: lines.map((l, i) => (i % 2 === 0 ? lineWords(l) : undefined)) };
      expect(scanLines(lines, terms, known), `round ${round} with known words`).toEqual(want);
    }
  });

  it('ignores known words of another term generation (their ids meant other terms)', () => {
    const lines = ['protein folding in cells', 'cells divide'];
    const terms = queryTerms('cells protein');
    const stale = { generation: termGeneration() - 1, lines: lines.map(() => Int32Array.of(1, 0, 5, 4, 5, 0)) };
    expect(scanLines(lines, terms, stale)).toEqual(reference(lines, terms));
  });

  it('snippetOfLines is makeSnippet of the joined lines', () => {
    const lines = ['# Heading', 'alpha beta gamma', 'the protein folds here and there', 'x'.repeat(300), 'more protein text', 'end'];
    for (const max of [40, 100, 200, 1000]) {
      const terms = queryTerms('protein folds');
      expect(snippetOfLines(lines, terms, max), `max ${max}`).toEqual(makeSnippet(lines.join('\n'), terms, max));
    }
  });

  it('counts the run before an astral letter once per probe found there, as the old scan did', () => {
    // isRunChar looks at one code unit, and half an astral letter is no word character: an
    // occurrence at 𝐀 widens to the run before it (`ab`), once for each of the two probes there.
    const terms = new Set(['ab', '\u{1d400}x', '\u{1d400}xy']);
    const lines = ['ab\u{1d400}x cd'];
    const want = reference(lines, terms);
    expect(want.matches[0]).toEqual([0, 0, 0]);
    expect(scanLines(lines, terms)).toEqual(want);
  });

  it('plainWord is exactly the words the tokenizer returns whole', () => {
    for (const w of ['word', 'Word', 'WORD', '123', 'a', 'Z', 'wOrd', 'WOrd', 'word2', 'x-y', 'café', '', '_a']) {
      if (plainWord(w)) expect(tokenize(w), w).toEqual([w]);
    }
    expect(['word', 'Word', 'WORD', '123'].every(plainWord)).toBe(true);
    expect(['wOrd', 'word2', 'x-y', 'café', ''].some(plainWord)).toBe(false);
  });
});

describe('bodySnippet', () => {
  it('skips headings and warning lines and keeps the first paragraph', () => {
    const body = '# Title\n\n> **Warning:** `a.md` is marked obsolete\n\nFirst paragraph\nwraps here.\n\nSecond.';
    expect(bodySnippet(body)).toBe('First paragraph wraps here.');
  });

  it('cuts long paragraphs at a word boundary', () => {
    const s = bodySnippet('word '.repeat(100), 40);
    expect(s.length).toBeLessThanOrEqual(40);
    expect(s.endsWith('…')).toBe(true);
  });
});
