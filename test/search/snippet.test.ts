import { describe, expect, it } from 'vitest';

import { bodySnippet, makeSnippet, queryTerms } from '../../src/lib/search/snippet.js';

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
