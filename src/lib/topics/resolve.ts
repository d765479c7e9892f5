/**
 * Which topic a person or ghost meant. Every command that takes a topic accepts the same names
 * `search` does: the exact id, `<name>` for `topic-<name>`, the exact title, or a word of the id
 * or title that only one topic has. When nothing matches, TOPIC_NOT_FOUND carries the closest
 * ids (`suggestions`) and points at `topic list`.
 */
import { basename } from 'node:path';

import { closest } from '../suggest.js';
import { TkomaError } from '../errors.js';
import { isValidTopicId } from '../store/model.js';
import { loadAllTopics, topicExists } from '../store/topic-files.js';

export interface NamedTopic {
  id: string;
  title: string;
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/** The TOPIC_NOT_FOUND error for `ref`, with the closest ids among `ids` as suggestions. */
export function topicNotFound(ref: string, ids: readonly string[]): TkomaError {
  const bare = ids.map((id) => id.replace(/^topic-/, ''));
  const near = [...new Set([...closest(ref, ids), ...closest(ref.replace(/^topic-/, ''), bare).map((b) => ids[bare.indexOf(b)]!)])].slice(0, 3);
  const hint = near.length ? `; did you mean ${near.join(' or ')}?` : ids.length ? '' : '; there are no topics yet';
  return new TkomaError('TOPIC_NOT_FOUND', `no topic "${ref}"${hint} (\`tkoma-ref topic list\` shows every topic)`, {
    topic_id: ref,
    ...(near.length ? { suggestions: near } : {}),
  });
}

/** Pure: the one topic `ref` names among `topics` (index into the array), or a TOPIC_NOT_FOUND error. */
export function matchTopicRef(ref: string, topics: readonly NamedTopic[]): number {
  const s = slug(ref);
  const byId = new Map(topics.map((t, i) => [t.id, i]));
  const exact = byId.get(ref) ?? byId.get(`topic-${s}`) ?? topics.findIndex((t) => t.title.toLowerCase() === ref.trim().toLowerCase());
  if (exact !== undefined && exact >= 0) return exact;
  const loose = s ? topics.map((t, i) => ({ t, i })).filter(({ t }) => `-${t.id}-`.includes(`-${s}-`) || slug(t.title).includes(s)) : [];
  if (loose.length === 1) return loose[0]!.i;
  if (loose.length > 1) {
    const candidates = loose.map(({ t }) => t.id);
    throw new TkomaError('TOPIC_NOT_FOUND', `"${ref}" matches several topics: ${candidates.join(', ')}; give the full id`, { topic_id: ref, candidates });
  }
  throw topicNotFound(ref, topics.map((t) => t.id));
}

/**
 * The topic id `ref` names in `root`. An existing id answers at once without reading any topic;
 * text that cannot be a name (empty, a path, dots) is returned as given for the caller's own
 * validation to refuse.
 */
export async function resolveTopicId(root: string, ref: string): Promise<string> {
  if (!ref.trim() || /[/\\]|^\.+$/.test(ref)) return ref;
  if (isValidTopicId(ref) && topicExists(root, ref)) return ref;
  const { topics, broken } = await loadAllTopics(root);
  // Folder names are the ids (a mismatched `id` in topic.md is reported elsewhere, never guessed).
  const named: NamedTopic[] = [
    ...topics.map((t) => ({ id: basename(t.dir), title: t.front.title })),
    ...broken.map((b) => ({ id: b.topic_id, title: '' })),
  ];
  return named[matchTopicRef(ref, named)]!.id;
}
