/**
 * The pure merges behind the sync's merge drivers: a topic's records by path (the newer fetch
 * wins a file both sides fetched), and topic.md field by field (tags as a set, the newer fetch's
 * files and commits, file status by path and time, the body as text with real git merge-file).
 */
import { describe, expect, it } from 'vitest';

import { serializeTopicMd } from '../../src/lib/store/frontmatter.js';
import type { TopicFront } from '../../src/lib/store/model.js';
import { conflictReason, topicChanges, unmergedStages } from '../../src/lib/sync/changes.js';
import { gitMergeText } from '../../src/lib/sync/drivers.js';
import { mergeRecordsText } from '../../src/lib/sync/merge-records.js';
import { mergeFileStatus, mergeTags, mergeTopicText } from '../../src/lib/sync/merge-topic.js';

const rec = (path: string, sha: string, at: string) => JSON.stringify({ path, source_url: 'u', role: 'docs', bytes: 1, sha256: sha, fetched_at: at });
const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');

describe('records merge', () => {
  const base = lines(rec('a.md', 'a0', '2026-01-01T00:00:00Z'), rec('b.md', 'b0', '2026-01-01T00:00:00Z'));
  it('takes the side that changed, and keeps an unchanged file', () => {
    const theirs = lines(rec('a.md', 'a1', '2026-02-01T00:00:00Z'), rec('b.md', 'b0', '2026-01-01T00:00:00Z'));
    expect(mergeRecordsText(base, base, theirs)).toEqual({ text: theirs, how: 'theirs' });
    expect(mergeRecordsText(base, theirs, base)).toEqual({ text: theirs, how: 'ours' });
    expect(mergeRecordsText(base, theirs, theirs).how).toBe('same');
  });
  it('both fetched: the newer fetch wins as a whole, deletions included', () => {
    const older = lines(rec('a.md', 'a1', '2026-02-01T00:00:00Z'), rec('b.md', 'b0', '2026-01-01T00:00:00Z'));
    // The newer fetch saw a.md reverted upstream (its record unchanged) and b.md removed.
    const newer = lines(rec('a.md', 'a0', '2026-01-01T00:00:00Z'), rec('c.md', 'c0', '2026-03-01T00:00:00Z'));
    expect(mergeRecordsText(base, older, newer).text).toBe(newer);
    expect(mergeRecordsText(base, newer, older).text).toBe(newer);
  });
  it('without fetch times (skipped lists): by path, the same bytes whichever side merges', () => {
    const sk = (path: string, reason: string) => JSON.stringify({ path, reason, source: 'u' });
    const b = lines(sk('x.bin', 'binary'));
    const o = lines(sk('x.bin', 'binary'), sk('y.lock', 'lockfile'));
    const t = lines(sk('z.png', 'binary'));
    const m1 = mergeRecordsText(b, o, t).text;
    expect(m1).toBe(lines(sk('y.lock', 'lockfile'), sk('z.png', 'binary')));
    expect(mergeRecordsText(b, t, o).text).toBe(m1);
  });
});

const front = (over: Partial<TopicFront> = {}): TopicFront => ({
  id: 'topic-x',
  title: 'X',
  type: 'ReferenceTopic',
  created_at: '2026-01-01T00:00:00Z',
  trust_score: 5,
  tags: ['a', 'b'],
  status: 'active',
  fetched_at: '2026-01-01T00:00:00Z',
  max_age_days: 30,
  files: ['a.md', 'b.md'],
  sources: [{ type: 'git', url: 'file:///up', commit: 'c0' }],
  ...over,
});
const note = (f: TopicFront, body = '# X\n\nIntro.\n\nMore.\n') => serializeTopicMd(f, body);

describe('topic.md merge', () => {
  it('tags: each side’s additions and removals', () => {
    expect(mergeTags(['a', 'b'], ['a', 'b', 'c'], ['b', 'd'])).toEqual(['b', 'c', 'd']);
    expect(mergeTags([], ['x'], ['x', 'y'])).toEqual(['x', 'y']);
  });
  it('file status: by path, the newer setting of a path both changed', () => {
    const e = (path: string, status: 'active' | 'problematic' | 'obsolete', at: string) => ({ path, status, updated_at: at });
    const merged = mergeFileStatus([], [e('a.md', 'problematic', '2026-01-02T00:00:00Z')], [e('a.md', 'obsolete', '2026-01-03T00:00:00Z'), e('b.md', 'obsolete', '2026-01-01T00:00:00Z')]);
    expect(merged).toEqual([e('a.md', 'obsolete', '2026-01-03T00:00:00Z'), e('b.md', 'obsolete', '2026-01-01T00:00:00Z')]);
  });
  it('merges tags, the newer fetch’s files and commits, and body edits in different places', () => {
    const base = note(front());
    const ours = note(front({ tags: ['a', 'b', 'ours'] }), '# X\n\nIntro, edited here.\n\nMore.\n');
    const theirs = note(front({ tags: ['b', 'theirs'], fetched_at: '2026-02-01T00:00:00Z', files: ['a.md', 'c.md'], sources: [{ type: 'git', url: 'file:///up', commit: 'c1' }] }), '# X\n\nIntro.\n\nMore, edited there.\n');
    const m = mergeTopicText(base, ours, theirs, gitMergeText)!;
    expect(m.conflicts).toEqual([]);
    expect(m.text).toBe(note(front({ tags: ['b', 'ours', 'theirs'], fetched_at: '2026-02-01T00:00:00Z', files: ['a.md', 'c.md'], sources: [{ type: 'git', url: 'file:///up', commit: 'c1' }] }), '# X\n\nIntro, edited here.\n\nMore, edited there.\n'));
    // The same result whichever side merges (but for the conflict-free order of tags).
    expect(mergeTopicText(base, theirs, ours, gitMergeText)!.text).toContain('commit = "c1"');
  });
  it('a body edited on both sides in the same place is a conflict with markers in the body only', () => {
    const base = note(front());
    const m = mergeTopicText(base, note(front(), '# X\n\nOurs.\n\nMore.\n'), note(front({ tags: ['a', 'b', 'z'] }), '# X\n\nTheirs.\n\nMore.\n'), gitMergeText)!;
    expect(m.conflicts).toEqual(['body']);
    const [fm, body] = m.text.split('\n+++\n');
    expect(fm).not.toMatch(/<<<<<<<|>>>>>>>/);
    expect(fm).toContain('tags = ["a", "b", "z"]');
    expect(body).toMatch(/<<<<<<< ours\nOurs\.\n=======\nTheirs\.\n>>>>>>> theirs/);
  });
  it('a title set differently on both sides is a conflict around that line', () => {
    const m = mergeTopicText(note(front()), note(front({ title: 'Ours' })), note(front({ title: 'Theirs' })), gitMergeText)!;
    expect(m.conflicts).toEqual(['title']);
    expect(m.text).toContain('<<<<<<< ours\ntitle = "Ours"\n=======\ntitle = "Theirs"\n>>>>>>> theirs');
  });
  it('a topic created on both sides: the earlier created_at, tags of both, no conflict when the bodies agree', () => {
    const m = mergeTopicText(null, note(front({ created_at: '2026-01-02T00:00:00Z', tags: ['x'] })), note(front({ created_at: '2026-01-01T00:00:00Z', tags: ['y'] })), gitMergeText)!;
    expect(m.conflicts).toEqual([]);
    expect(m.text).toContain('created_at = "2026-01-01T00:00:00Z"');
    expect(m.text).toContain('tags = ["x", "y"]');
  });
  it('a side that does not parse is left to the text merge', () => {
    expect(mergeTopicText(note(front()), 'not a note', note(front()), gitMergeText)).toBeNull();
  });
});

describe('changes and conflicts', () => {
  it('reads topics added, changed and removed from a name-status list', () => {
    const z = ['A', 'references/t-new/topic.md', 'A', 'references/t-new/a.md', 'M', 'references/t-old/a.md', 'D', 'references/t-gone/topic.md', 'M', 'README.md', ''].join('\0');
    expect(topicChanges(z)).toEqual({ added: ['t-new'], changed: ['t-old'], removed: ['t-gone'] });
  });
  it('names the reason of each unmerged path', () => {
    const z = ['100644 aaa 1\treferences/t/topic.md', '100644 bbb 2\treferences/t/topic.md', '100644 ccc 3\treferences/t/topic.md', '100644 aaa 1\treferences/u/topic.md', '100644 ccc 3\treferences/u/topic.md', ''].join('\0');
    const st = unmergedStages(z);
    expect(conflictReason('references/t/topic.md', st.get('references/t/topic.md')!)).toBe('body edited on both sides');
    expect(conflictReason('references/u/topic.md', st.get('references/u/topic.md')!)).toBe('topic deleted here, changed there');
  });
});
