/** Phase B's plan of a refresh (pure): phase A's outcomes applied to the topic as it is now. */
import { describe, expect, it } from 'vitest';

import type { TopicFront, TopicSource } from '../../src/lib/store/model.js';
import type { FileRecord } from '../../src/lib/store/topic-files.js';
import type { TreeScan } from '../../src/lib/topics/carry.js';
import type { Fetched } from '../../src/lib/topics/refresh-fetch.js';
import { planRefresh, type SourceRefresh } from '../../src/lib/topics/refresh-plan.js';

const GIT: TopicSource = { type: 'git', url: 'file:///up/repo', ref: 'main', commit: 'a'.repeat(40) };
const WEB: TopicSource = { type: 'web', url: 'https://example.test/page' };

const rec = (path: string, sha: string, source = GIT.url): FileRecord => ({ path, source_url: source, role: 'docs', bytes: 1, sha256: sha, fetched_at: '2026-01-01T00:00:00.000Z' });

function front(sources: TopicSource[]): TopicFront {
  return { id: 't', title: 'T', type: 'ReferenceTopic', created_at: '', trust_score: 1, tags: [], status: 'active', fetched_at: '', max_age_days: 30, files: [], sources };
}

const scan = (paths: string[]): TreeScan => new Map(paths.map((p, i) => [p, { size: 1n, mtimeNs: 1n, ino: BigInt(i + 1), link: false }]));

const counts = () => ({ added: 0, changed: 0, removed: 0, unchanged: 0, warnings: [] as string[], sources: [] as SourceRefresh[] });

describe('planRefresh', () => {
  it('applies a fetched source, keeps a failed one, and never takes a name a file nobody fetched holds', () => {
    const manifest = [rec('a.md', '1'), rec('b.md', '2'), rec('gone.md', '3'), rec('page.md', '9', WEB.url)];
    const topic = front([GIT, WEB]);
    const newCommit = 'b'.repeat(40);
    const outcomes: Fetched[] = [
      {
        kind: 'fetched',
        dir: '/staging/0',
        fetched: { source: { ...GIT, commit: newCommit }, ok: true, files: [rec('a.md', '1'), rec('b.md', '22'), rec('new.md', '4'), rec('mine.md', '5')], skipped: [] },
      },
      { kind: 'failed', error: 'timed out' },
    ];
    const r = counts();
    // mine.md is in the folder but in no manifest: the operator's own file.
    const plan = planRefresh('t', { front: topic, manifest, skippedBefore: [], before: scan(['a.md', 'b.md', 'gone.md', 'page.md', 'mine.md']) }, { seen: topic, prefixes: ['', ''], outcomes }, r);

    expect([...plan.records.keys()].sort()).toEqual(['a.md', 'b.md', 'new.md', 'page.md']);
    expect(plan.records.get('b.md')!.sha256).toBe('22');
    expect(plan.records.get('page.md')!.sha256).toBe('9'); // the failed source's file is kept as it was
    expect(Object.fromEntries(plan.touched)).toEqual({
      'b.md': { how: 'changed', from: '/staging/0/b.md' },
      'new.md': { how: 'added', from: '/staging/0/new.md' },
      'gone.md': { how: 'removed' },
    });
    expect({ added: r.added, changed: r.changed, removed: r.removed, unchanged: r.unchanged }).toEqual({ added: 1, changed: 1, removed: 1, unchanged: 2 });
    expect(r.sources.map((s) => s.status)).toEqual(['updated', 'failed']);
    expect(plan.sourceUpdates.get(0)).toEqual({ commit: newCommit });
    expect(plan.sourceUpdates.has(1)).toBe(false);
    expect(plan.skippedNow).toEqual([{ path: 'mine.md', reason: 'duplicate_path', source: GIT.url, bytes: 1 }]);
    expect(r.warnings).toEqual([
      'mine.md: another file of the topic holds this name; the new upstream file was not written',
      `${WEB.url}: timed out (kept the files fetched before)`,
    ]);
  });

  it('keeps a source whose entry changed since phase A, and fails when no source is left', () => {
    const topic = front([GIT]);
    const seen = front([{ ...GIT, url: 'file:///up/other' }]);
    const run = () => planRefresh('t', { front: topic, manifest: [rec('a.md', '1')], skippedBefore: [], before: scan(['a.md']) }, { seen, prefixes: [''], outcomes: [{ kind: 'up_to_date', remote: GIT.commit! }] }, counts());
    expect(run).toThrow(expect.objectContaining({ code: 'SOURCE_UNREACHABLE', message: expect.stringContaining("the topic's sources changed during the refresh") }));
  });

  it('is NOT_ALLOWED, not unreachable, when the root refused every source', () => {
    const topic = front([GIT, WEB]);
    const refused: Fetched = { kind: 'failed', error: 'not allowed', code: 'NOT_ALLOWED' };
    const run = () => planRefresh('t', { front: topic, manifest: [], skippedBefore: [], before: scan([]) }, { seen: topic, prefixes: ['', ''], outcomes: [refused, refused] }, counts());
    expect(run).toThrow(expect.objectContaining({ code: 'NOT_ALLOWED' }));
  });

  it('an up-to-date source keeps its files and records a newer version its pin does not follow', () => {
    const topic = front([GIT]);
    const r = counts();
    const plan = planRefresh('t', { front: topic, manifest: [rec('a.md', '1')], skippedBefore: [], before: scan(['a.md']) }, { seen: topic, prefixes: [''], outcomes: [{ kind: 'up_to_date', remote: GIT.commit!, upstream: 'v2' }] }, r);
    expect(r.sources.map((s) => s.status)).toEqual(['up_to_date']);
    expect(r.unchanged).toBe(1);
    expect(plan.touched.size).toBe(0);
    expect(plan.sourceUpdates.get(0)).toEqual({ upstream_version: 'v2' });
  });
});
