/** Read-only views of topics: list, recent, show, get. No index, no models: cheap to call. */

import { TkomaError } from '../errors.js';
import { byTopic, hasConflictMarkers, rootStateNote, unmergedPaths } from '../root-state.js';
import { readInside } from '../safety/paths.js';
import { untrustedFor, untrustedSummary } from '../safety/warnings.js';
import { displayTags, displayTitle } from '../safety/text.js';
import { fileCountOf } from '../store/frontmatter.js';
import { fetchedAtProblem, fileStatusOf, sourceVersion, staleness, type TopicFront, versionLabel } from '../store/model.js';
import { readSkipped } from '../store/skipped.js';
import { type BrokenTopic, type FileFlag, type LoadedTopic, loadAllTopics, readManifest, readTopic, resolveTopicPath, TOPIC_FILE } from '../store/topic-files.js';
import { validateTopicIdField } from './request.js';
import { includeHint } from './skip-report.js';

export interface TopicListEntry {
  topic_id: string;
  title: string;
  status: string;
  is_stale: boolean;
  stale_since: string | null;
  fetched_at: string;
  max_age_days: number;
  created_by_ghost: string | null;
  source_count: number;
  file_count: number;
  tags: string[];
  /** The version its sources are at (npm package versions, git tags), comma-separated when several. */
  version?: string;
  /**
   * A newer version upstream that a source does not follow, as refresh's last check saw it (no
   * network here): an exact pin's newer release. Ranges and dist-tags move at each refresh.
   */
  upstream_version?: string;
  /** Present when something about the note needs the operator (e.g. an unreadable fetched_at). */
  warnings?: string[];
  /** Unmerged files or conflict markers in the topic (a merge, a stash pop): `conflicts` names them, relative to the topic. */
  conflicted?: true;
  conflicts?: string[];
}

/**
 * A topic whose topic.md cannot be used (does not parse, or its `id` is not its folder's name),
 * as `topic list --json` shows it: never half-listed, never searched, always reported.
 */
export interface BrokenListEntry {
  topic_id: string;
  status: 'broken';
  error: BrokenTopic['error'];
  conflicted?: true;
  conflicts?: string[];
}

function listEntry(front: TopicFront, now: Date): TopicListEntry {
  const s = staleness(front, now);
  const problem = fetchedAtProblem(front, now);
  const warnings = problem ? [problem] : [];
  return {
    topic_id: front.id,
    // Titles and tags reach other ghosts' prompts: one line, bounded, nothing invisible, even when
    // topic.md was edited by hand.
    title: displayTitle(front.title),
    status: front.status,
    is_stale: s.is_stale,
    stale_since: s.stale_since,
    fetched_at: front.fetched_at,
    max_age_days: front.max_age_days,
    created_by_ghost: front.created_by?.ghost ?? null,
    source_count: front.sources.length,
    file_count: fileCountOf(front),
    tags: displayTags(front.tags),
    ...joinedField('version', front.sources.map(sourceVersion)),
    ...joinedField('upstream_version', front.sources.map((src) => src.upstream_version)),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

function joinedField<K extends string>(key: K, values: (string | undefined)[]): Partial<Record<K, string>> {
  const present = values.filter((v): v is string => !!v);
  return present.length > 0 ? ({ [key]: present.join(', ') } as Record<K, string>) : {};
}

export async function listTopics(root: string, opts: { includeObsolete?: boolean; now?: Date } = {}): Promise<{ topics: TopicListEntry[]; broken: BrokenTopic[] }> {
  const { topics, broken } = await listWithConflicts(root, opts);
  return { topics, broken };
}

/** listTopics, and the conflicts it found: listTopicsJson marks the broken topics from the same `git ls-files -u`. */
async function listWithConflicts(root: string, opts: { includeObsolete?: boolean; now?: Date }): Promise<{ topics: TopicListEntry[]; broken: BrokenTopic[]; conflicts: Map<string, string[]> }> {
  const { topics, broken } = await loadAllTopics(root);
  const now = opts.now ?? new Date();
  const conflicts = topicConflicts(root, topics);
  const entries = topics
    .filter((t) => opts.includeObsolete || t.front.status !== 'obsolete')
    .map((t) => withConflicts(listEntry(t.front, now), conflicts.get(t.front.id)))
    .sort((a, b) => (a.fetched_at < b.fetched_at ? 1 : a.fetched_at > b.fetched_at ? -1 : a.topic_id < b.topic_id ? -1 : 1));
  return { topics: entries, broken, conflicts };
}

/** `topic list --json`: the healthy topics, then every broken one with its error. */
export async function listTopicsJson(root: string, opts: { includeObsolete?: boolean; now?: Date } = {}): Promise<{ entries: (TopicListEntry | BrokenListEntry)[]; broken: BrokenTopic[] }> {
  // A broken topic's id is no loaded topic's, so its entry in `conflicts` is git's unmerged paths alone, as before.
  const { topics, broken, conflicts } = await listWithConflicts(root, opts);
  return { entries: [...topics, ...broken.map((b): BrokenListEntry => withConflicts({ topic_id: b.topic_id, status: 'broken', error: b.error }, conflicts.get(b.topic_id)))], broken };
}

/**
 * Topic id → its conflicted files: unmerged index entries under references/ (one `git ls-files
 * -u`), and a topic.md whose body holds conflict markers.
 */
function topicConflicts(root: string, topics: readonly LoadedTopic[]): Map<string, string[]> {
  const out = byTopic(unmergedPaths(root, ['references']));
  for (const t of topics) {
    if (hasConflictMarkers(t.body) && !out.get(t.front.id)?.includes(TOPIC_FILE)) out.set(t.front.id, [...(out.get(t.front.id) ?? []), TOPIC_FILE]);
  }
  return out;
}

function withConflicts<E extends object>(entry: E, paths: string[] | undefined): E & { conflicted?: true; conflicts?: string[] } {
  return paths?.length ? { ...entry, conflicted: true, conflicts: paths } : entry;
}

/** The seed's prompt block: the most recently fetched non-obsolete topics. */
export async function recentTopics(root: string, limit = 10): Promise<{ topics: TopicListEntry[]; markdown: string }> {
  const { topics } = await listTopics(root);
  const recent = topics.slice(0, limit);
  const lines = ['## Available Reference Topics', ''];
  if (recent.length === 0) lines.push('_No reference topics yet._');
  for (const t of recent) lines.push(`- ${t.title} (\`${t.topic_id}\`)${t.tags.length ? ` — ${t.tags.join(', ')}` : ''}`);
  return { topics: recent, markdown: lines.join('\n') + '\n' };
}

export interface TopicShow extends TopicListEntry {
  trust_score: number;
  created_at: string;
  sources: TopicFront['sources'];
  files: {
    path: string;
    role: string;
    bytes: number | null;
    status: string;
    reason?: string;
    source_url: string | null;
    /** Possible prompt injection or hidden text found at fetch time (line 0: the whole file). */
    flags?: FileFlag[];
  }[];
  /** Files with flags, and the count of each kind. */
  untrusted: { files: number; by_kind: Record<string, number> };
  body: string;
  root_warning?: string;
}

export async function showTopic(root: string, id: string): Promise<TopicShow> {
  const { front, body, dir }: LoadedTopic = await readTopic(root, validateTopicIdField(id));
  const manifest = new Map((await readManifest(dir)).map((r) => [r.path, r]));
  return {
    ...withConflicts(listEntry(front, new Date()), topicConflicts(root, [{ front, body, dir }]).get(front.id)),
    trust_score: front.trust_score,
    created_at: front.created_at,
    sources: front.sources,
    files: front.files.map((p) => {
      const rec = manifest.get(p);
      const st = front.file_status?.find((f) => f.path === p);
      return {
        path: p,
        role: rec?.role ?? 'docs',
        bytes: rec?.bytes ?? null,
        status: st?.status ?? 'active',
        ...(st?.reason ? { reason: st.reason } : {}),
        source_url: rec?.source_url ?? null,
        ...(rec?.flags && rec.flags.length > 0 ? { flags: rec.flags } : {}),
      };
    }),
    untrusted: untrustedSummary(front.files.map((p) => ({ path: p, flags: manifest.get(p)?.flags }))),
    body,
    ...rootWarning(root),
  };
}

export interface GetRequest {
  id?: string;
  topic?: string;
  path?: string;
  start_line?: number;
  end_line?: number;
  max_chars?: number;
}

export interface GetResult {
  id: string;
  topic_id: string;
  path: string;
  start_line: number;
  end_line: number;
  total_lines: number;
  truncated: boolean;
  content: string;
  role: string;
  status: string;
  source_url: string | null;
  fetched_at: string | null;
  commit: string | null;
  /** The package version, git tag, a branch's commit (short), or a web page's fetch day. */
  version: string;
  is_stale: boolean;
  /** Findings of the injection checks inside the returned lines (or about the whole file: line 0). */
  untrusted?: { kind: string; line: number }[];
  /** The root's git is mid-operation (detached HEAD, merge, rebase, …): see rootStateNote. */
  root_warning?: string;
}

/**
 * Note ids are `<topic-id>/<path>` (what search hits carry as `id`), optionally with `#L10-L40`;
 * a bare topic id gets the topic note itself.
 */
export function parseNoteId(id: string): { topic: string; path: string; start?: number; end?: number } {
  const m = /^([^/#]+)(?:\/([^#]+))?(?:#L(\d+)(?:-L?(\d+))?)?$/.exec(id.trim());
  if (!m) throw new TkomaError('INVALID_INPUT', `invalid note id "${id}": expected <topic-id>/<path>[#L<start>-L<end>]`, { id });
  return { topic: m[1], path: m[2] ?? TOPIC_FILE, ...(m[3] ? { start: Number(m[3]) } : {}), ...(m[4] ? { end: Number(m[4]) } : {}) };
}

export async function getReference(root: string, req: GetRequest): Promise<GetResult> {
  let topic = req.topic;
  let path = req.path;
  let start = req.start_line;
  let end = req.end_line;
  if (req.id) {
    const parsed = parseNoteId(req.id);
    topic = parsed.topic;
    path = parsed.path;
    start ??= parsed.start;
    end ??= parsed.end;
  }
  if (!topic) throw new TkomaError('INVALID_INPUT', 'give --id <topic-id>/<path>, or --topic with --path');
  const { front, dir } = await readTopic(root, validateTopicIdField(topic));
  const { rel } = resolveTopicPath(dir, path ?? TOPIC_FILE);
  let text: string;
  try {
    // No symbolic link anywhere on the way (a folder link planted in the topic could lead anywhere).
    text = (await readInside(dir, rel)).toString('utf8');
  } catch (err) {
    if (err instanceof TkomaError && err.code === 'INVALID_PATH') throw err;
    const skipped = (await readSkipped(dir)).find((s) => s.path === rel);
    if (skipped) {
      const hint = includeHint(skipped.reason, skipped.path);
      throw new TkomaError('SKIPPED', `topic "${front.id}" skipped "${rel}" when fetching (${skipped.reason}): ${hint}`, {
        topic_id: front.id,
        path: rel,
        reason: skipped.reason,
        source: skipped.source,
        ...(skipped.bytes !== undefined ? { bytes: skipped.bytes } : {}),
        hint,
      });
    }
    throw new TkomaError('FILE_NOT_FOUND', `topic "${front.id}" has no file "${rel}"`, { topic_id: front.id, path: rel });
  }
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const s = Math.max(1, start ?? 1);
  const e = Math.min(total, end ?? total);
  if (start !== undefined && s > total) {
    throw new TkomaError('INVALID_INPUT', `start_line ${s} is past the end of ${rel} (${total} lines)`, { total_lines: total });
  }
  let content = lines.slice(s - 1, Math.max(s - 1, e)).join('\n');
  let truncated = false;
  if (req.max_chars !== undefined && content.length > req.max_chars) {
    content = content.slice(0, req.max_chars);
    truncated = true;
  }
  const rec = rel === TOPIC_FILE ? undefined : (await readManifest(dir)).find((r) => r.path === rel);
  return {
    id: `${front.id}/${rel}`,
    topic_id: front.id,
    path: rel,
    start_line: s,
    end_line: truncated ? s + content.split('\n').length - 1 : Math.max(s, e),
    total_lines: total,
    truncated,
    content,
    role: rel === TOPIC_FILE ? 'docs' : (rec?.role ?? 'docs'),
    status: fileStatusOf(front, rel),
    source_url: rec?.source_url ?? null,
    fetched_at: rec?.fetched_at ?? front.fetched_at,
    commit: rec?.commit ?? null,
    version: versionLabel(rec, front.fetched_at),
    is_stale: staleness(front).is_stale,
    ...untrustedFor(rec, s, truncated ? s + content.split('\n').length - 1 : Math.max(s, e)),
    ...rootWarning(root),
  };
}

function rootWarning(root: string): { root_warning?: string } {
  const note = rootStateNote(root, { unmerged: false });
  return note ? { root_warning: note } : {};
}
