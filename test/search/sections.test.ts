import { describe, expect, it } from 'vitest';

import { asksForOverview, lexicalQuestion } from '../../src/lib/search/question-frame.js';
import { INTRO_SHARE, isIntroTitle, preferIntroductions } from '../../src/lib/search/sections.js';

describe('question frame', () => {
  it("drops a leading interrogative with its auxiliary, and a how-question's work", () => {
    expect(lexicalQuestion('how does reactivity work in dioxus')).toBe('reactivity  in dioxus');
    expect(lexicalQuestion('How do server functions work?')).toBe('server functions ?');
    expect(lexicalQuestion('what is a signal')).toBe('a signal');
    expect(lexicalQuestion("what's hydration")).toBe('hydration');
    expect(lexicalQuestion('how do I make matches in the title count more')).toBe('make matches in the title count more');
    expect(lexicalQuestion('how to retry a failed request')).toBe('retry a failed request');
  });

  it('keeps words that are not a frame, and a question that is nothing but one', () => {
    expect(lexicalQuestion('where clause in sql')).toBe('where clause in sql');
    expect(lexicalQuestion('how many retries by default')).toBe('how many retries by default');
    expect(lexicalQuestion('maxSockets')).toBe('maxSockets');
    expect(lexicalQuestion('how does it work')).toBe('how does it work');
    expect(lexicalQuestion('fuzzy search with a maximum edit distance')).toBe('fuzzy search with a maximum edit distance');
  });

  it('tells overview questions from specific ones', () => {
    for (const q of ['how does routing work', 'How do signals work with async?', 'what is a component', 'explain hydration', 'overview of the router']) expect(asksForOverview(q), q).toBe(true);
    for (const q of ['how do I pass props to a child', 'set maxSockets', 'where clause in sql', 'how to deploy']) expect(asksForOverview(q), q).toBe(false);
  });
});

describe('section choice', () => {
  const hit = (key: string, score: number, path = 'docs/state.md') => ({ key, topicId: 't', path, score });
  const intro = new Set(['docs/state.md#0', 'docs/other.md#0']);

  it("puts a page's introduction in place of its narrow section when it scores close", () => {
    const hits = [hit('docs/state.md#7', 1.0), hit('docs/other.md#3', 0.98, 'docs/other.md'), hit('docs/state.md#0', 0.95)];
    const out = preferIntroductions(hits, (k) => intro.has(k));
    expect(out.map((h) => h.key)).toEqual(['docs/state.md#0', 'docs/state.md#7', 'docs/other.md#3']);
    expect(out[0]!.score).toBe(1.0);
  });

  it('leaves the order alone when the introduction trails by more than the margin, or leads already', () => {
    const far = [hit('docs/state.md#7', 1.0), hit('docs/state.md#0', 0.99 * INTRO_SHARE)];
    expect(preferIntroductions(far, (k) => intro.has(k))).toEqual(far);
    const leads = [hit('docs/state.md#0', 1.0), hit('docs/state.md#7', 0.99)];
    expect(preferIntroductions(leads, (k) => intro.has(k))).toEqual(leads);
  });

  it("reads a page's top heading alone as its introduction", () => {
    expect(isIntroTitle('Effects and Memos')).toBe(true);
    expect(isIntroTitle('Effects and Memos > Working with Untracked State')).toBe(false);
  });
});
