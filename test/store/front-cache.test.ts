/**
 * A large topic.md's front is kept in `.tkoma/topic-fronts/` (front-cache.ts) and read from there
 * by the next process while the note's stat is the one it was read at; its `files` still come from
 * the note, and an edit, a copy or a damaged keep falls back to parsing the note.
 */
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { FRONT_CACHE_FROM } from '../../src/lib/store/front-cache.js';
import { cli, tmpDir } from '../helpers/fixtures.js';
import { writeTopicMd } from '../helpers/index-topics.js';
import { freshRoot } from '../helpers/roots.js';

const tmp = tmpDir();
afterAll(() => tmp.cleanup());

const ID = 'topic-big';
// Enough file names (28 bytes a line) to pass the size from which a note's front is kept.
const files: Record<string, string> = {};
for (let i = 0; i < Math.ceil((FRONT_CACHE_FROM * 1.2) / 28); i++) files[`docs/section-${String(i).padStart(6, '0')}.md`] = '';

const show = async (root: string) => {
  const r = await cli(['topic', 'show', ID, '--json'], { root });
  expect(r.code, r.stderr).toBe(0);
  return r.json as { title: string; file_count: number; files: { path: string }[] };
};

describe('a large note\'s front, kept', () => {
  const root = join(tmp.path, 'root');
  const note = join(root, 'references', ID, 'topic.md');
  const kept = join(root, '.tkoma', 'topic-fronts', `${ID}.json`);

  it('is written by the first reader and used by the next process, files from the note', async () => {
    await freshRoot(root);
    writeTopicMd(root, { id: ID, title: 'Big topic', body: 'A body.\n', files });
    expect(readFileSync(note).length).toBeGreaterThan(FRONT_CACHE_FROM);
    const first = await show(root);
    expect(existsSync(kept)).toBe(true);
    const copy = JSON.parse(readFileSync(kept, 'utf8')) as { front: { title: string; files: string[] } };
    expect(copy.front.files).toEqual([]);
    // The next process answers from the kept front: a title changed only there shows.
    copy.front.title = 'Title from the kept front';
    writeFileSync(kept, JSON.stringify(copy));
    const second = await show(root);
    expect(second.title).toBe('Title from the kept front');
    expect(second.file_count).toBe(first.file_count);
    expect(second.files.map((f) => f.path)).toEqual(Object.keys(files).sort());
    // `topic list` counts the files from the kept front, without reading the note's list.
    const list = async () => ((await cli(['topic', 'list', '--json'], { root })).json as { topic_id: string; file_count: number }[]).find((t) => t.topic_id === ID)!;
    expect((await list()).file_count).toBe(Object.keys(files).length);
    const withCount = JSON.parse(readFileSync(kept, 'utf8')) as { file_count: number };
    expect(withCount.file_count).toBe(Object.keys(files).length);
    withCount.file_count = 7;
    writeFileSync(kept, JSON.stringify(withCount));
    expect((await list()).file_count).toBe(7);
  });

  it('is ignored once the note is edited, and made again from it', async () => {
    writeFileSync(note, readFileSync(note, 'utf8').replace('title = "Big topic"', 'title = "Big topic, edited"'));
    expect((await show(root)).title).toBe('Big topic, edited');
    expect((JSON.parse(readFileSync(kept, 'utf8')) as { front: { title: string } }).front.title).toBe('Big topic, edited');
  });

  it('is ignored in a copy of the root (another note, same bytes and times) and when damaged', async () => {
    const copy = join(tmp.path, 'copy');
    cpSync(root, copy, { recursive: true, preserveTimestamps: true });
    const copied = join(copy, '.tkoma', 'topic-fronts', `${ID}.json`);
    const k = JSON.parse(readFileSync(copied, 'utf8')) as { front: { title: string } };
    k.front.title = 'stale keep';
    writeFileSync(copied, JSON.stringify(k));
    expect((await show(copy)).title).toBe('Big topic, edited');
    writeFileSync(kept, '{"format":1,"stamp":');
    expect((await show(root)).title).toBe('Big topic, edited');
    // Well-formed JSON with a field of the wrong type: the note is read instead.
    await show(root);
    const wrong = JSON.parse(readFileSync(kept, 'utf8')) as { front: { tags: unknown; title: string } };
    wrong.front.tags = 'not a list';
    wrong.front.title = 'from a damaged keep';
    writeFileSync(kept, JSON.stringify(wrong));
    expect((await show(root)).title).toBe('Big topic, edited');
    // A link in its place is not followed (as index files are never read through one).
    const elsewhere = join(tmp.path, 'elsewhere.json');
    const good = JSON.parse(readFileSync(kept, 'utf8')) as { front: { title: string } };
    good.front.title = 'through a link';
    writeFileSync(elsewhere, JSON.stringify(good));
    rmSync(kept);
    symlinkSync(elsewhere, kept);
    expect((await show(root)).title).toBe('Big topic, edited');
  });

  it('does not hide a note that became malformed', async () => {
    writeFileSync(note, readFileSync(note, 'utf8').replace('type = "ReferenceTopic"', 'type = "Other"'));
    const r = await cli(['topic', 'show', ID, '--json'], { root });
    expect(r.code).not.toBe(0);
    expect(r.json?.error?.code).toBe('MALFORMED_TOPIC');
  });
});
