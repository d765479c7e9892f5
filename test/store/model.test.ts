import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { CLOCK_SKEW_TOLERANCE_MS, fetchedAtProblem, isValidTopicId, staleness, topicIdFromTitle, withFileWarnings } from '../../src/lib/store/model.js';

const now = new Date('2025-07-20T12:00:00Z');

describe('staleness (the seed logic)', () => {
  it('never goes stale with max_age_days = 0, even when obsolete (seed order)', () => {
    expect(staleness({ status: 'active', fetched_at: '2000-01-01T00:00:00Z', max_age_days: 0 }, now)).toEqual({ is_stale: false, stale_since: null });
    expect(staleness({ status: 'obsolete', fetched_at: '2000-01-01T00:00:00Z', max_age_days: 0 }, now).is_stale).toBe(false);
  });

  it('is stale once more than max_age_days whole days have passed', () => {
    const fetched = '2025-06-15T10:00:00Z';
    expect(staleness({ status: 'active', fetched_at: fetched, max_age_days: 30 }, new Date('2025-07-15T11:00:00Z')).is_stale).toBe(false);
    const s = staleness({ status: 'active', fetched_at: fetched, max_age_days: 30 }, new Date('2025-07-16T10:00:01Z'));
    expect(s).toEqual({ is_stale: true, stale_since: '2025-07-15T10:00:00.000Z' });
  });

  it('treats obsolete and hand-set stale topics as stale', () => {
    expect(staleness({ status: 'obsolete', fetched_at: '2025-07-19T00:00:00Z', max_age_days: 30 }, now).is_stale).toBe(true);
    expect(staleness({ status: 'stale', fetched_at: '2025-07-19T00:00:00Z', max_age_days: 30 }, now).is_stale).toBe(true);
  });
});

describe('a fetched_at from a wrong clock', () => {
  const ahead = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const front = (fetched_at: string, max_age_days = 30) => ({ id: 'topic-x', status: 'active' as const, fetched_at, max_age_days });

  it('counts a topic fetched "in the future" as stale, with a warning naming the fix', () => {
    // A year ahead would otherwise be fresh for a year and more.
    expect(staleness(front(ahead(365 * 86_400_000)), now)).toEqual({ is_stale: true, stale_since: null });
    expect(staleness(front(ahead(CLOCK_SKEW_TOLERANCE_MS + 1000)), now).is_stale).toBe(true);
    const warning = fetchedAtProblem(front(ahead(86_400_000)), now);
    expect(warning).toMatch(/is in the future .*wrong\).*counts as stale until `tkoma-ref refresh topic-x`/);
  });

  it('tolerates the few minutes by which clocks of machines sharing a root differ', () => {
    expect(staleness(front(ahead(CLOCK_SKEW_TOLERANCE_MS - 1000)), now)).toEqual({ is_stale: false, stale_since: null });
    expect(fetchedAtProblem(front(ahead(CLOCK_SKEW_TOLERANCE_MS - 1000)), now)).toBeNull();
    expect(fetchedAtProblem(front(now.toISOString()), now)).toBeNull();
  });

  it('warns about an unreadable fetched_at too, and never for a topic that cannot go stale', () => {
    expect(fetchedAtProblem(front('yesterday'), now)).toMatch(/^fetched_at "yesterday" is not a date/);
    expect(fetchedAtProblem(front(ahead(86_400_000), 0), now)).toBeNull();
    expect(staleness(front(ahead(86_400_000), 0), now).is_stale).toBe(false);
  });
});

describe('topic ids', () => {
  it('slugs titles', () => {
    expect(topicIdFromTitle('Dioxus - Rust UI Framework')).toBe('topic-dioxus-rust-ui-framework');
    expect(topicIdFromTitle('Ünïcödé  Tëst!!')).toBe('topic-unicode-test');
    expect(topicIdFromTitle('日本語')).toMatch(/^topic-[0-9a-f]{8}$/); // issue 9: no longer one id for every such title
  });

  it('always gives a valid, bounded id', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (title) => {
        const id = topicIdFromTitle(title);
        expect(isValidTopicId(id)).toBe(true);
        expect(id.length).toBeLessThanOrEqual(60);
      }),
    );
  });

  it('refuses ids that could escape the references folder', () => {
    for (const bad of ['..', '../x', 'a/b', '', '-x', 'A', 'a..b', 'x\0']) expect(isValidTopicId(bad)).toBe(false);
  });
});

describe('file warnings in the body', () => {
  const st = [{ path: 'docs/old.md', status: 'obsolete' as const, reason: 'describes v0.4', updated_at: '2025-07-01T00:00:00Z' }];

  it('adds one visible line per flagged file after the first heading', () => {
    const out = withFileWarnings('# Title\n\nBody text.\n', st);
    expect(out.split('\n').slice(0, 3)).toEqual(['# Title', '', '> **Warning:** `docs/old.md` is marked obsolete: describes v0.4 (2025-07-01)']);
    expect(out).toContain('Body text.');
  });

  it('regenerates instead of stacking, and removes the line when the file is active again', () => {
    const once = withFileWarnings('# Title\n\nBody text.\n', st);
    expect(withFileWarnings(once, st)).toBe(once);
    expect(withFileWarnings(once, [])).toBe('# Title\n\nBody text.\n');
  });
});
