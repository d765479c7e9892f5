/**
 * `topic list`: the work and its rendering, with no oclif import, so the start-up fast path
 * (cli/fast.ts) answers it as the oclif command (commands/topic/list.ts) does. Agents list topics
 * often, and oclif's start was about half of a list's cost.
 */
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import { type BrokenListEntry, listTopicsJson, type TopicListEntry } from '../lib/topics/read.js';
import { readInput } from './output.js';
import { paint, table } from './render.js';

export interface TopicListFlags {
  json?: boolean;
  root?: string;
  input?: string;
  'include-obsolete'?: boolean;
}

export type TopicListRow = TopicListEntry | BrokenListEntry;

/** The listed topics; a broken one is also reported on stderr. */
export async function runTopicList(flags: TopicListFlags): Promise<TopicListRow[]> {
  const input = readInput(flags.input);
  const root = requireRoot(resolveRootPath(flags.root));
  const includeObsolete = flags['include-obsolete'] === true || input.include_obsolete === true;
  const { entries, broken } = await listTopicsJson(root, { includeObsolete });
  for (const b of broken) process.stderr.write(`${paint('yellow', 'Warning')}: ${b.error.message}\n`);
  return entries;
}

export function renderTopicList(rows: TopicListRow[]): string {
  if (rows.length === 0) return 'No topics yet. Create one with `tkoma-ref topic create`.';
  return table(
    rows.map((r) =>
      'error' in r
        ? { topic_id: r.topic_id, title: `(broken: ${r.error.code})`, status: 'broken', fresh: '', fetched: '', file_count: '', tags: '' }
        : { ...r, fresh: r.is_stale ? 'stale' : 'fresh', fetched: r.fetched_at.slice(0, 10) },
    ),
    [
      { key: 'topic_id', header: 'ID' },
      { key: 'title', header: 'TITLE', max: 40 },
      { key: 'status', header: 'STATUS' },
      { key: 'fresh', header: 'FRESH' },
      { key: 'fetched', header: 'FETCHED' },
      { key: 'file_count', header: 'FILES' },
      { key: 'tags', header: 'TAGS', max: 30 },
    ],
  );
}
