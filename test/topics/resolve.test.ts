/** Which topic a name means: exact id, bare name, title, a unique word; near misses as suggestions. */
import { describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { matchTopicRef, topicNotFound } from '../../src/lib/topics/resolve.js';

const TOPICS = [
  { id: 'topic-dioxus', title: 'Dioxus' },
  { id: 'topic-rust-ui', title: 'Rust UI toolkits' },
  { id: 'topic-rust-async', title: 'Async Rust' },
];

const errorOf = (fn: () => unknown): TkomaError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof TkomaError) return err;
    throw err;
  }
  throw new Error('expected an error');
};

describe('matchTopicRef', () => {
  it('finds by id, bare name, title (any case) and a word only one topic has', () => {
    expect(matchTopicRef('topic-dioxus', TOPICS)).toBe(0);
    expect(matchTopicRef('dioxus', TOPICS)).toBe(0);
    expect(matchTopicRef('async rust', TOPICS)).toBe(2);
    expect(matchTopicRef('ui', TOPICS)).toBe(1);
  });

  it('a word several topics share names the candidates', () => {
    const e = errorOf(() => matchTopicRef('rust', TOPICS));
    expect(e.code).toBe('TOPIC_NOT_FOUND');
    expect(e.details).toMatchObject({ candidates: ['topic-rust-ui', 'topic-rust-async'] });
  });

  it('nothing close: TOPIC_NOT_FOUND with the nearest ids as suggestions', () => {
    const e = errorOf(() => matchTopicRef('dioxsu', TOPICS));
    expect(e.code).toBe('TOPIC_NOT_FOUND');
    expect(e.details).toMatchObject({ suggestions: ['topic-dioxus'] });
  });
});

describe('topicNotFound', () => {
  it('says when there are no topics at all', () => {
    expect(topicNotFound('x', []).message).toMatch(/there are no topics yet/);
  });
});
