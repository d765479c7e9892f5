/** The topic note's data model (the seed's "Full topic.md Example") and its pure rules. */
import { createHash } from 'node:crypto';

import type { CrawlOptions } from '../sources/crawl/options.js';

export const TOPIC_STATUSES = ['active', 'stale', 'obsolete'] as const;
export type TopicStatus = (typeof TOPIC_STATUSES)[number];

export const FILE_STATUSES = ['active', 'problematic', 'obsolete'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

export interface TopicSource {
  type: 'git' | 'web' | 'npm';
  /** npm: `npm:<package>`, derived (not written): resolved through each reader's own registry. */
  url: string;
  ref?: string;
  /** git: whether `ref` named a branch or a tag when fetched; refresh follows only that kind. */
  ref_kind?: 'branch' | 'tag';
  /** git: the commit fetched (full sha). */
  commit?: string;
  /** git: folders (trailing `/`) and single files to fetch; absent = whole repository. */
  paths?: string[];
  /** web: the URL after redirects, when it differs. */
  final_url?: string;
  /** npm: the package name. */
  package?: string;
  /** npm and git: the version asked for: exact, a semver range, or (npm) a dist-tag. Git records the tag chosen as `ref`. */
  version?: string;
  /** npm: the exact version fetched. */
  resolved_version?: string;
  /** npm: the tarball's integrity (SRI), checked on download. */
  integrity?: string;
  /** npm: the tarball downloaded (informative: another reader's registry may differ). */
  tarball?: string;
  /** npm: the package's repository as published, and the commit it was published from. */
  repository?: string;
  git_head?: string;
  /** npm and git versions: a newer version the last check saw that this source does not follow (an exact pin). */
  upstream_version?: string;
  /** web: crawl the site from `url` (issue 28) instead of fetching the one page. */
  crawl?: CrawlOptions;
}

/** The version a source is at: an npm package's exact version, or the tag of a git source. Pure. */
export function sourceVersion(s: Pick<TopicSource, 'type' | 'resolved_version' | 'ref' | 'ref_kind'>): string | undefined {
  if (s.type === 'npm') return s.resolved_version;
  return s.type === 'git' && s.ref_kind === 'tag' ? s.ref : undefined;
}

/**
 * The version a source's files are at, as hits and \`get\` show it: the package version, the tag,
 * the commit (short) of a branch, or the day a web page was fetched. Pure.
 */
export function versionLabel(rec: { version?: string; commit?: string; fetched_at?: string } | undefined, fallbackDate: string): string {
  if (rec?.version) return rec.version;
  if (rec?.commit) return rec.commit.slice(0, 12);
  const at = rec?.fetched_at ?? fallbackDate;
  return /^\d{4}-\d{2}-\d{2}/.test(at) ? at.slice(0, 10) : at;
}

export interface FileStatusEntry {
  path: string;
  status: FileStatus;
  reason?: string;
  updated_at: string;
}

export interface TopicFront {
  id: string;
  title: string;
  type: 'ReferenceTopic';
  created_at: string;
  trust_score: number;
  tags: string[];
  status: TopicStatus;
  fetched_at: string;
  max_age_days: number;
  files: string[];
  created_by?: { ghost?: string; model?: string };
  sources: TopicSource[];
  file_status?: FileStatusEntry[];
}

export interface Staleness {
  is_stale: boolean;
  stale_since: string | null;
}

const DAY_MS = 86_400_000;

/**
 * How far ahead of this machine's clock a fetched_at may be and still count as a real time: the
 * clocks of machines sharing a root through git drift by seconds, not by this much.
 */
export const CLOCK_SKEW_TOLERANCE_MS = 10 * 60_000;

/** fetched_at as a time, null when it is not a date or lies in the future (a wrong clock wrote it). */
function trustedFetchTime(fetchedAt: string, now: Date): number | null {
  const t = Date.parse(fetchedAt);
  if (Number.isNaN(t) || t - now.getTime() > CLOCK_SKEW_TOLERANCE_MS) return null;
  return t;
}

/**
 * Why a topic's fetched_at cannot be trusted (for a warning), or null. Only for topics that can go
 * stale: such a fetched_at makes the topic count as stale until a refresh records a real time.
 */
export function fetchedAtProblem(front: Pick<TopicFront, 'id' | 'fetched_at' | 'max_age_days'>, now: Date = new Date()): string | null {
  if (front.max_age_days === 0 || trustedFetchTime(front.fetched_at, now) !== null) return null;
  const what = Number.isNaN(Date.parse(front.fetched_at))
    ? `fetched_at ${JSON.stringify(front.fetched_at)} is not a date`
    : `fetched_at ${front.fetched_at} is in the future (the clock of the machine that fetched it was wrong)`;
  return `${what}: the topic counts as stale until \`tkoma-ref refresh ${front.id}\` records a real one`;
}

/**
 * The seed's staleness logic, in its order: max_age_days = 0 never goes stale; a topic marked
 * obsolete (or stale by hand) is stale; otherwise stale once more than max_age_days have passed
 * since fetched_at. `stale_since` is the moment the age limit was crossed, when that applies. A
 * fetched_at that is not a date, or lies in the future (a machine with a wrong clock, shared through
 * git), makes the topic stale (stale_since null): never fresh forever.
 */
export function staleness(front: Pick<TopicFront, 'status' | 'fetched_at' | 'max_age_days'>, now: Date = new Date()): Staleness {
  if (front.max_age_days === 0) return { is_stale: false, stale_since: null };
  const fetched = trustedFetchTime(front.fetched_at, now);
  const limit = fetched === null ? null : new Date(fetched + front.max_age_days * DAY_MS);
  if (front.status === 'obsolete' || front.status === 'stale') {
    return { is_stale: true, stale_since: limit && limit.getTime() <= now.getTime() ? limit.toISOString() : null };
  }
  // An unreadable fetched_at ("yesterday", hand-edited) or one in the future cannot prove the topic
  // fresh: it is stale (so `refresh --stale` picks it up and records a real date), no stale_since.
  if (fetched === null || !limit) return { is_stale: true, stale_since: null };
  // "(now - fetched_at).days > max_age_days": whole days, so stale strictly after the limit day.
  const ageDays = Math.floor((now.getTime() - fetched) / DAY_MS);
  return ageDays > front.max_age_days ? { is_stale: true, stale_since: limit.toISOString() } : { is_stale: false, stale_since: null };
}

/** Effective status of one file (files without an entry are active). */
export function fileStatusOf(front: Pick<TopicFront, 'file_status'>, path: string): FileStatus {
  return front.file_status?.find((f) => f.path === path)?.status ?? 'active';
}

/** Latin letters NFKD does not take apart. */
const LATIN: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i', ħ: 'h', ŋ: 'ng' };

/**
 * Topic id from a title: `topic-` + lowercase ASCII words joined by `-`, at most 60 characters,
 * cut at a word boundary. Latin letters are transliterated (accents dropped, `ß` → `ss`); when
 * letters, digits or symbols remain that have no ASCII form (CJK, Cyrillic, emoji…), a short hash
 * of the title follows the words (or stands alone), so such titles do not all meet at one id.
 * Pure and deterministic so the same title always gives the same id.
 */
export function topicIdFromTitle(title: string): string {
  const ascii = title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\x00-\x7f]/g, (c) => LATIN[c] ?? c);
  const words = ascii.split(/[^a-z0-9]+/).filter(Boolean);
  const lost = /[\p{L}\p{N}\p{S}]/u.test(ascii.replace(/[\x00-\x7f]/g, ''));
  const hash = lost ? createHash('sha256').update(title.normalize('NFC').trim()).digest('hex').slice(0, 8) : '';
  const room = hash ? 53 - hash.length - 1 : 53;
  let slug = '';
  for (const w of words) {
    const next = slug ? `${slug}-${w}` : w;
    if (next.length > room) break;
    slug = next;
  }
  if (!slug) slug = words[0]?.slice(0, room) ?? '';
  slug = [slug, hash].filter(Boolean).join('-');
  return `topic-${slug || 'untitled'}`;
}

export const TOPIC_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,99}$/;

export function isValidTopicId(id: string): boolean {
  return TOPIC_ID_PATTERN.test(id) && !id.includes('..');
}

const WARNING_PREFIX = '> **Warning:**';

/**
 * The topic body carries one visible warning line per problematic or obsolete file, right after
 * the first heading. Lines we wrote earlier are recognised by their prefix and regenerated, so
 * setting a file back to active removes its line and hand-written text is never touched.
 */
export function withFileWarnings(body: string, statuses: FileStatusEntry[]): string {
  const lines = body.split('\n').filter((l) => !l.startsWith(WARNING_PREFIX));
  const warnings = statuses
    .filter((s) => s.status !== 'active')
    .map((s) => `${WARNING_PREFIX} \`${s.path}\` is marked ${s.status}${s.reason ? `: ${s.reason.replace(/\s+/g, ' ')}` : ''} (${s.updated_at.slice(0, 10)})`);
  // Drop the blank line a previous warning block left behind, then re-insert.
  const headingIdx = lines.findIndex((l) => /^#\s/.test(l));
  const at = headingIdx >= 0 ? headingIdx + 1 : 0;
  while (lines[at] === '' && lines[at + 1] === '') lines.splice(at, 1);
  if (warnings.length === 0) return lines.join('\n');
  const block = headingIdx >= 0 ? ['', ...warnings] : [...warnings, ''];
  lines.splice(at, 0, ...block);
  return lines.join('\n');
}
