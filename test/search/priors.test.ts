/** Issue 12: role priors and translated copies in fusion (pure). */
import { describe, expect, it } from 'vitest';

import { boostsFor, fuse, ROLE_BOOSTS, TRANSLATION_FACTOR, type FusionCandidate } from '../../src/lib/search/fusion.js';
import { isTranslatedCopy } from '../../src/lib/search/translations.js';

const cand = (key: string, path: string, role: FusionCandidate['role'], extra: Partial<FusionCandidate> = {}): FusionCandidate => ({
  key, topicId: 't', path, startLine: 1, endLine: 10, role, trust: 10, fileStatus: 'active', ...extra,
});

describe('role priors', () => {
  it('docs over code, examples level with it (measured on repo-qa), tests below', () => {
    expect(ROLE_BOOSTS.docs).toBeGreaterThan(ROLE_BOOSTS.code);
    expect(ROLE_BOOSTS.example).toBe(ROLE_BOOSTS.code);
    expect(ROLE_BOOSTS.test).toBeLessThan(ROLE_BOOSTS.code);
    expect(boostsFor(cand('a', 'x.test.ts', 'test')).role).toBe(ROLE_BOOSTS.test);
  });

  it('a README section outranks a test block scoring a little higher', () => {
    const c = new Map([
      ['t', cand('t', 'src/a.test.js', 'test')],
      ['d', cand('d', 'README.md', 'docs')],
    ]);
    const hits = fuse([{ key: 't', score: 10 }, { key: 'd', score: 8 }], [], c);
    expect(hits.map((h) => h.key)).toEqual(['d', 't']);
  });

  it('a translated copy sinks below its original', () => {
    const c = new Map([
      ['fr', cand('fr', 'docs/fr/guide.md', 'docs', { translated: true })],
      ['en', cand('en', 'docs/guide.md', 'docs')],
    ]);
    const hits = fuse([{ key: 'fr', score: 10 }, { key: 'en', score: 9 }], [], c);
    expect(hits.map((h) => h.key)).toEqual(['en', 'fr']);
    expect(hits[1]!.explain.boosts.role).toBeCloseTo(ROLE_BOOSTS.docs * TRANSLATION_FACTOR);
  });
});

describe('translated copies', () => {
  const files = new Set(['docs/guide.md', 'docs/fr/guide.md', 'docs/de/only-de.md', 'README.md', 'README.zh-CN.md', 'notes.fr.md']);
  const has = (p: string): boolean => files.has(p);
  it.each([
    ['docs/fr/guide.md', true],
    ['docs/de/only-de.md', false],
    ['docs/en/guide.md', false],
    ['README.zh-CN.md', true],
    ['translations/ja/README.md', true],
    ['i18n/es/intro.md', true],
    ['docs/guide.md', false],
    ['src/i18n/es.ts', false],
  ])('%s → %s', (path, want) => {
    expect(isTranslatedCopy(path, has)).toBe(want);
  });
});
