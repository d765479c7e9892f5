/**
 * Issue 9, lesser finding: titles with no ASCII letters all became `topic-untitled`, so the second
 * such create failed TOPIC_EXISTS. Latin letters are transliterated; what cannot be (CJK,
 * Cyrillic, …) gives `topic-` + a short stable hash of the title.
 */
import { describe, expect, it } from 'vitest';

import { isValidTopicId, topicIdFromTitle } from '../../src/lib/store/model.js';

describe('topic ids from titles without ASCII letters', () => {
  it('transliterates Latin letters, accents and the common ligatures', () => {
    expect(topicIdFromTitle('Crème brûlée')).toBe('topic-creme-brulee');
    expect(topicIdFromTitle('Straße Ærø Łódź')).toBe('topic-strasse-aero-lodz');
  });

  it('gives distinct, stable, valid ids to titles with nothing ASCII', () => {
    const titles = ['日本語', '中文文档', 'Документация', 'Справочник', 'العربية', '🦀🦀'];
    const ids = titles.map(topicIdFromTitle);
    expect(new Set(ids).size).toBe(titles.length);
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(/^topic-[0-9a-f]{8}$/);
      expect(isValidTopicId(id)).toBe(true);
      expect(topicIdFromTitle(titles[i]!)).toBe(id); // a pure function of the title
    }
    expect(ids).not.toContain('topic-untitled');
  });

  it('keeps the ASCII words and adds the hash when letters were left out', () => {
    const a = topicIdFromTitle('Rust 日本語');
    const b = topicIdFromTitle('Rust 中文');
    expect(a).toMatch(/^topic-rust-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(topicIdFromTitle('Rust Book')).toBe('topic-rust-book'); // nothing left out: no hash
  });
});
