/**
 * What a range of commits did to the topics, and why a path is unmerged: parsers of git's
 * `diff --name-status -z` and `ls-files -u -z` output. Pure.
 */

export interface TopicChanges {
  added: string[];
  changed: string[];
  removed: string[];
}

export interface SyncConflict {
  path: string;
  topic_id: string | null;
  reason: string;
}

const TOPIC_PATH = /^references\/([^/]+)\/(.+)$/;

export function topicOf(path: string): string | null {
  return TOPIC_PATH.exec(path)?.[1] ?? null;
}

/** Topics added (topic.md appeared), removed (topic.md went) and changed (anything else under the folder). */
export function topicChanges(nameStatusZ: string): TopicChanges {
  const fields = nameStatusZ.split('\0');
  const added = new Set<string>();
  const removed = new Set<string>();
  const touched = new Set<string>();
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++];
    if (!status) continue;
    // Renames and copies carry two paths; with --no-renames there are none, but read them right anyway.
    const paths = /^[RC]/.test(status) ? [fields[i++]!, fields[i++]!] : [fields[i++]!];
    for (const p of paths) {
      const m = TOPIC_PATH.exec(p);
      if (!m) continue;
      touched.add(m[1]!);
      if (m[2] === 'topic.md' && status === 'A') added.add(m[1]!);
      if (m[2] === 'topic.md' && status === 'D') removed.add(m[1]!);
    }
  }
  const changed = [...touched].filter((id) => !added.has(id) && !removed.has(id));
  return { added: [...added].sort(), changed: changed.sort(), removed: [...removed].sort() };
}

/** Every topic a change list names. */
export function allTopics(c: TopicChanges): string[] {
  return [...new Set([...c.added, ...c.changed, ...c.removed])].sort();
}

/** Stages present per unmerged path, from `git ls-files -u -z`. */
export function unmergedStages(lsFilesUZ: string): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const line of lsFilesUZ.split('\0')) {
    const m = /^\d+ [0-9a-f]+ ([123])\t(.+)$/s.exec(line);
    if (!m) continue;
    if (!out.has(m[2]!)) out.set(m[2]!, new Set());
    out.get(m[2]!)!.add(Number(m[1]));
  }
  return out;
}

/**
 * Why a path is unmerged, in the operator's words. `markersInFront`: a topic.md whose front matter
 * holds markers (a field both sides set) rather than its body.
 */
export function conflictReason(path: string, stages: Set<number>, markersInFront = false): string {
  const note = path.endsWith('/topic.md');
  if (!stages.has(2) && stages.has(3)) return note ? 'topic deleted here, changed there' : 'deleted here, changed there';
  if (stages.has(2) && !stages.has(3)) return note ? 'topic deleted there, changed here' : 'deleted there, changed here';
  if (!stages.has(1)) return 'added on both sides';
  if (note) return markersInFront ? 'a field set differently on both sides' : 'body edited on both sides';
  return 'edited on both sides';
}

/** Does the text hold a line git's conflict markers start with? */
export function hasConflictMarkers(text: string): boolean {
  return /^(<{7}|>{7})( |$)/m.test(text);
}
