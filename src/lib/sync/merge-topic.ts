/**
 * Three-way merge of a topic.md, field by field: tags are a set (each side's additions and
 * removals), the side with the newest `fetched_at` brings its `files` and `sources` (their
 * commits), `file_status` entries merge by path (the newest `updated_at` wins a path both set), and
 * the other fields take whichever side changed them. The body is merged as text; a body edited on
 * both sides in the same place, or a field both sides set to different values, is a conflict left
 * with git's markers for the operator. Pure, but for the text merge it is given.
 */
import { parseTopicMd, serializeTopicMd } from '../store/frontmatter.js';
import { type FileStatusEntry, type TopicFront, withFileWarnings } from '../store/model.js';

/** A three-way text merge (git merge-file): the result, with conflict markers where it is not clean. */
export type TextMerge = (base: string, ours: string, theirs: string) => { text: string; clean: boolean };

export interface TopicMerge {
  text: string;
  /** Fields set differently on both sides, and `body` when the body did not merge. */
  conflicts: string[];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function when(iso: string | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? -Infinity : t;
}

/** A field's three-way value; `conflict` when both changed it differently (ours is kept in place). */
function pick<T>(b: T | undefined, o: T, t: T): { value: T; conflict: boolean } {
  if (same(o, t) || same(t, b)) return { value: o, conflict: false };
  if (same(o, b)) return { value: t, conflict: false };
  return { value: o, conflict: true };
}

/** Each side's additions and removals against the base; order: ours, then what theirs added. */
export function mergeTags(base: readonly string[], ours: readonly string[], theirs: readonly string[]): string[] {
  const b = new Set(base);
  const removed = new Set([...base].filter((x) => !ours.includes(x) || !theirs.includes(x)));
  const out: string[] = [];
  for (const x of [...ours, ...theirs]) if (!out.includes(x) && !(b.has(x) && removed.has(x))) out.push(x);
  return out;
}

/** `file_status` by path: each side's changes; a path both changed goes to the newest `updated_at`. */
export function mergeFileStatus(base: readonly FileStatusEntry[], ours: readonly FileStatusEntry[], theirs: readonly FileStatusEntry[]): FileStatusEntry[] {
  const idx = (l: readonly FileStatusEntry[]) => new Map(l.map((e) => [e.path, e]));
  const [b, o, t] = [idx(base), idx(ours), idx(theirs)];
  const out: FileStatusEntry[] = [];
  for (const p of new Set([...o.keys(), ...t.keys(), ...b.keys()])) {
    const [eb, eo, et] = [b.get(p), o.get(p), t.get(p)];
    let e: FileStatusEntry | undefined;
    if (same(eo, et) || same(et, eb)) e = eo;
    else if (same(eo, eb)) e = et;
    else if (!eo || !et) e = eo ?? et; // removed on one side, set again on the other: the later setting stays
    else e = when(eo.updated_at) > when(et.updated_at) || (when(eo.updated_at) === when(et.updated_at) && JSON.stringify(eo) > JSON.stringify(et)) ? eo : et;
    if (e) out.push(e);
  }
  return out;
}

/** The side whose fetch is newer: 1 ours, -1 theirs, 0 the same moment. */
export function newerFetch(ours: Pick<TopicFront, 'fetched_at'>, theirs: Pick<TopicFront, 'fetched_at'>): 1 | -1 | 0 {
  const [o, t] = [when(ours.fetched_at), when(theirs.fetched_at)];
  return o > t ? 1 : o < t ? -1 : 0;
}

const SCALARS = ['title', 'created_at', 'trust_score', 'status', 'max_age_days'] as const;

/** Our warning lines are regenerated from the merged file_status, so they never conflict. */
function stripWarnings(body: string): string {
  return withFileWarnings(body, []);
}

/**
 * `base` is null when the topic did not exist there (created on both sides). Returns null when a
 * side does not parse as a topic note: the caller falls back to git's text merge.
 */
export function mergeTopicText(base: string | null, ours: string, theirs: string, mergeText: TextMerge, file = 'topic.md'): TopicMerge | null {
  let o, t, b;
  try {
    o = parseTopicMd(ours, file);
    t = parseTopicMd(theirs, file);
    b = base === null || base === '' ? null : parseTopicMd(base, file);
  } catch {
    return null;
  }
  const bf: Partial<TopicFront> = b?.front ?? {};
  const conflicts: string[] = [];
  const front: TopicFront = { ...o.front };
  const scalarConflicts: { key: string; theirs: unknown }[] = [];
  for (const k of SCALARS) {
    const r = pick(bf[k], o.front[k], t.front[k]);
    // A topic created on both machines: it exists since the earlier creation, no question to ask.
    if (k === 'created_at' && r.conflict) {
      front.created_at = when(o.front.created_at) <= when(t.front.created_at) ? o.front.created_at : t.front.created_at;
      continue;
    }
    (front as unknown as Record<string, unknown>)[k] = r.value;
    if (r.conflict) scalarConflicts.push({ key: k, theirs: t.front[k] });
  }
  const cb = pick(bf.created_by, o.front.created_by, t.front.created_by);
  if (cb.value) front.created_by = cb.value;
  else delete front.created_by;
  front.tags = mergeTags(bf.tags ?? [], o.front.tags, t.front.tags);
  const newer = newerFetch(o.front, t.front);
  if (newer !== 0) {
    const src = newer > 0 ? o.front : t.front;
    front.fetched_at = src.fetched_at;
    front.files = [...src.files];
    front.sources = src.sources.map((s) => ({ ...s }));
  } else {
    // The same fetch on both sides (or none): whichever side edited the lists by hand; both: the larger, so every machine agrees.
    for (const k of ['files', 'sources'] as const) {
      const r = pick(bf[k], o.front[k], t.front[k]);
      (front as unknown as Record<string, unknown>)[k] = r.conflict ? (JSON.stringify(o.front[k]) > JSON.stringify(t.front[k]) ? o.front[k] : t.front[k]) : r.value;
    }
  }
  const status = mergeFileStatus(bf.file_status ?? [], o.front.file_status ?? [], t.front.file_status ?? []);
  if (status.length > 0) front.file_status = status;
  else delete front.file_status;

  const [bb, ob, tb] = [stripWarnings(b?.body ?? ''), stripWarnings(o.body), stripWarnings(t.body)];
  let body: string;
  if (ob === tb || tb === bb) body = ob;
  else if (ob === bb) body = tb;
  else {
    const m = mergeText(bb, ob, tb);
    body = m.text;
    if (!m.clean) conflicts.push('body');
  }
  let text = serializeTopicMd(front, withFileWarnings(body, front.file_status ?? []));
  if (scalarConflicts.length > 0) text = markFieldConflicts(text, front, scalarConflicts);
  conflicts.unshift(...scalarConflicts.map((c) => c.key));
  return { text, conflicts };
}

/** A field both sides set differently: git's markers around our line and theirs, in place. */
function markFieldConflicts(text: string, front: TopicFront, fields: { key: string; theirs: unknown }[]): string {
  const lines = text.split('\n');
  for (const f of fields) {
    const theirsLine = serializeTopicMd({ ...front, [f.key]: f.theirs } as TopicFront, '').split('\n').find((l) => l.startsWith(`${f.key} =`))!;
    const at = lines.findIndex((l) => l.startsWith(`${f.key} =`));
    if (at < 0) continue;
    lines.splice(at, 1, '<<<<<<< ours', lines[at]!, '=======', theirsLine, '>>>>>>> theirs');
  }
  return lines.join('\n');
}
