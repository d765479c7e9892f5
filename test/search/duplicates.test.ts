/** Issue 12: duplicate READMEs fold into one hit with also_in; tests rank below docs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DuplicateIndex, fingerprint, NEAR_DUPLICATE, prefixLength, sameText } from '../../src/lib/search/duplicates.js';
import { searchReferences } from '../../src/lib/search/search.js';
import { makeTmpRoot, writeTopic } from '../helpers/index-topics.js';

const readme = `# Widgetry\n\nWidgetry renders widgets. To boost a field, pass \`boost: { title: 2 }\` in the search options so matches in the title count more than matches in the text.\n\n## Install\n\nnpm install widgetry\n`;

describe('duplicate folding', () => {
  let env: ReturnType<typeof makeTmpRoot>;
  beforeAll(async () => {
    env = makeTmpRoot();
    await writeTopic(env.root, {
      id: 'topic-widgetry',
      title: 'Widgetry',
      body: 'Widgetry docs.',
      files: {
        'README.md': readme,
        'packages/widgetry/README.md': readme,
        'packages/core/README.md': `${readme}\nMIT.\n`,
        'src/search.test.js': `describe('search', () => {\n  it('boost title matches count more than text matches', () => {\n    expect(search('title text', { boost: { title: 2 } })[0].id).toBe(1);\n  });\n});\n`,
      },
    });
  });
  afterAll(() => env.cleanup());

  it('shows the text once, with the other paths in also_in', async () => {
    const res = await searchReferences(env.root, { question: 'boost title matches count more than text', topic: 'topic-widgetry', embedder: null });
    const readmes = res.results.filter((h) => h.path.endsWith('README.md'));
    expect(readmes).toHaveLength(1);
    expect(new Set([readmes[0]!.path, ...(readmes[0]!.also_in ?? [])])).toEqual(
      new Set(['README.md', 'packages/widgetry/README.md', 'packages/core/README.md']),
    );
    // The docs answer ranks above the test block that repeats the question's words.
    expect(res.results[0]!.role).toBe('docs');
    expect(res.results.find((h) => h.path === 'src/search.test.js')?.role).toBe('test');
  });

  it('near-identical means ≥ 0.9 shingle overlap', () => {
    const base = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    expect(sameText(fingerprint(base), fingerprint(`${base} extra`))).toBe(true);
    expect(sameText(fingerprint(base), fingerprint(base.replace(/word1(\d)/g, 'other$1')))).toBe(false);
    expect(sameText(fingerprint('a  b\nc'), fingerprint('A b c'))).toBe(true);
  });

  it('the shingle index finds the same twin as comparing with every kept text, earliest first', () => {
    const words = (seed: number, n: number) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 97}x${i % 13}`).join(' ');
    const texts = [words(1, 150), `${words(1, 150)} tail`, words(2, 150), words(1, 120), 'short one', 'Short  ONE', words(3, 60), `${words(3, 60)} and a few more words that make it differ by more than a tenth of its length`, words(2, 150).replace(/x1 /g, 'y1 '), ''];
    const index = new DuplicateIndex<number>();
    const kept: { i: number; fp: ReturnType<typeof fingerprint> }[] = [];
    for (const [i, t] of texts.entries()) {
      const fp = fingerprint(t);
      const linear = kept.find((k) => sameText(k.fp, fp))?.i;
      expect(index.twinOf(fp), `text ${i}`).toBe(linear);
      if (linear === undefined) {
        index.add(i, fp);
        kept.push({ i, fp });
      }
    }
    expect(kept.map((k) => k.i)).toEqual([0, 2, 3, 4, 6, 7, 8, 9]);
  });

  it('indexing only the smallest shingles still finds every near copy: copies around the threshold', () => {
    // Texts sharing long runs of words, each edited in a few places, so that many pairs sit
    // just above and just below 0.9; the prefix index must find what a full comparison finds.
    let seed = 11;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    const base = Array.from({ length: 400 }, (_, i) => `w${i % 173}q${i % 7}`);
    const texts: string[] = [];
    for (let i = 0; i < 120; i++) {
      const words = base.slice(Math.floor(next() * 8), 300 + Math.floor(next() * 30));
      for (let e = Math.floor(next() * 8); e > 0; e--) words[Math.floor(next() * words.length)] = `edit${Math.floor(next() * 1000)}`;
      texts.push(words.join(next() < 0.5 ? ' ' : '\n'));
    }
    const index = new DuplicateIndex<number>();
    const kept: { i: number; fp: ReturnType<typeof fingerprint> }[] = [];
    let folded = 0;
    for (const [i, t] of texts.entries()) {
      const fp = fingerprint(t);
      const linear = kept.find((k) => sameText(k.fp, fp))?.i;
      expect(index.twinOf(fp), `text ${i}`).toBe(linear);
      if (linear === undefined) {
        index.add(i, fp);
        kept.push({ i, fp });
      } else folded++;
    }
    // Both verdicts occur, so the comparison above is not vacuous.
    expect(folded).toBeGreaterThan(10);
    expect(kept.length).toBeGreaterThan(10);
  });

  it('a prefix is long enough for the overlap a near copy needs', () => {
    for (let n = 1; n <= 5000; n++) {
      const need = Math.ceil(NEAR_DUPLICATE * n - 1e-9); // shingles two near copies share, at least
      expect(prefixLength(n), `n ${n}`).toBeGreaterThanOrEqual(n - need + 1);
      expect(prefixLength(n)).toBeLessThanOrEqual(n);
    }
    expect(prefixLength(0)).toBe(0);
  });

  it('fingerprints list distinct shingles in ascending order', () => {
    const fp = fingerprint('one two three four five one two three four five one two three four five six');
    const list = [...fp.shingles];
    expect(list).toEqual([...new Set(list)].sort((a, b) => a - b));
    expect(list.length).toBe(6); // the repeated 5-grams count once
  });
});
