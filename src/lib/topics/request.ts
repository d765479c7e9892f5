/**
 * Validation of requests given as flags or as JSON (`--input`), with the seed's field names.
 * Pure: every check runs before anything is fetched or written.
 */
import { TkomaError } from '../errors.js';
import { type LimitsOverride, parseLimits } from '../safety/limits.js';
import { isFullCommitSha, normalizePaths, redactUrl, validateGitUrl, validateRef } from '../sources/git-url.js';
import { type CrawlOptions, parseCrawl } from '../sources/crawl/options.js';
import { validateWebUrl } from '../sources/web-url.js';
import { isValidPackageName } from '../sources/npm/names.js';
import { versionSpecKind } from '../sources/versions.js';
import { charCount, MAX_TAG_CHARS, MAX_TAGS, MAX_TITLE_CHARS, oneLine } from '../safety/text.js';
import { FILE_STATUSES, type FileStatus, isValidTopicId, TOPIC_STATUSES, type TopicStatus, topicIdFromTitle } from '../store/model.js';

export interface SourceRequest {
  type: 'git' | 'web' | 'npm';
  /** npm: `npm:<package>`, filled in by validation (the package is resolved through the reader's registry). */
  url: string;
  ref?: string;
  paths?: string[];
  /** npm: the package name. */
  package?: string;
  /** npm: exact version, range or dist-tag (default latest); git: exact version or range over the tags. */
  version?: string;
  /** web: crawl the site from `url` (sources/crawl/options.ts). */
  crawl?: CrawlOptions;
}

export interface CreateRequest {
  topic_id: string;
  title: string;
  body: string;
  sources: SourceRequest[];
  tags: string[];
  max_age_days: number;
  trust_score: number;
  /** Caps for this topic over the root's `[limits]`: max_files, max_file_bytes, max_topic_bytes. */
  limits?: LimitsOverride;
}

export interface UpdateRequest {
  topic_id: string;
  status?: TopicStatus;
  max_age_days?: number;
  body?: string;
  tags?: string[];
  title?: string;
  trust_score?: number;
}

export interface FileStatusRequest {
  topic_id: string;
  path: string;
  status: FileStatus;
  reason?: string;
}

const invalid = (message: string, field?: string): TkomaError => new TkomaError('INVALID_INPUT', message, field ? { field } : {});

/**
 * Which request fields came from CLI flags, and the flag's name (`max_age_days` → `--max-age-days`):
 * errors name what the user typed, the flag for flags and the JSON field for `--input`.
 */
export type FieldNames = Readonly<Record<string, string>>;

/** FieldNames for the flags that were given: `map` is JSON field → flag name without dashes. */
export function flagNames(flags: Readonly<Record<string, unknown>>, map: Readonly<Record<string, string>>): FieldNames {
  const out: Record<string, string> = {};
  for (const [field, flag] of Object.entries(map)) if (flags[flag] !== undefined) out[field] = `--${flag}`;
  return out;
}

const label = (names: FieldNames, key: string): string => names[key] ?? key;

/** A value as it appears in an error message: short, and honest about NaN and Infinity. */
function shown(v: unknown): string {
  if (typeof v === 'number') return String(v);
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(o: Record<string, unknown>, key: string, max = 100_000, names: FieldNames = {}): string | undefined {
  const v = o[key];
  const name = label(names, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`\`${name}\` must be a string, not ${typeName(v)}`, name);
  if (v.length > max) throw invalid(`\`${name}\` is longer than ${max} characters`, name);
  return v;
}

/**
 * A whole number from min to max. Integers are integers: 2.5, "30", 1e400 (Infinity), NaN and
 * numbers past 2^53 are refused, so nothing the topic.md reader would reject is ever written.
 */
function optInt(o: Record<string, unknown>, key: string, min: number, max: number, names: FieldNames = {}): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const name = label(names, key);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    throw invalid(`\`${name}\` must be a whole number from ${min} to ${max} (got ${typeof v === 'number' ? shown(v) : `${typeName(v)} ${shown(v)}`})`, name);
  }
  return v;
}

/** A title: one line, control and bidi characters removed, at most MAX_TITLE_CHARS. */
function optTitle(o: Record<string, unknown>, names: FieldNames): string | undefined {
  const raw = optString(o, 'title', 100_000, names);
  if (raw === undefined) return undefined;
  const name = label(names, 'title');
  const title = oneLine(raw);
  if (!title) throw invalid(`\`${name}\` must not be empty`, name);
  if (charCount(title) > MAX_TITLE_CHARS) throw invalid(`\`${name}\` is longer than ${MAX_TITLE_CHARS} characters (${charCount(title)})`, name);
  return title;
}

/** Tags: at most MAX_TAGS, each one line of at most MAX_TAG_CHARS; empty ones and repeats dropped. */
function optTags(o: Record<string, unknown>, names: FieldNames): string[] | undefined {
  const v = o.tags;
  if (v === undefined || v === null) return undefined;
  const name = label(names, 'tags');
  if (!Array.isArray(v)) throw invalid(`\`${name}\` must be an array of strings, not ${typeName(v)}`, name);
  if (v.length > MAX_TAGS) throw invalid(`\`${name}\` lists ${v.length} tags; at most ${MAX_TAGS}`, name);
  const out: string[] = [];
  v.forEach((t, i) => {
    if (typeof t !== 'string') throw invalid(`\`${name}\` must be an array of strings (item ${i} is ${typeName(t)})`, name);
    const tag = oneLine(t);
    if (charCount(tag) > MAX_TAG_CHARS) throw invalid(`\`${name}\`: tag ${i} is longer than ${MAX_TAG_CHARS} characters (${charCount(tag)})`, name);
    if (tag && !out.includes(tag)) out.push(tag);
  });
  return out;
}

function enumValue<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new TkomaError('INVALID_ENUM', `\`${field}\` must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`, {
      field,
      allowed,
    });
  }
  return value as T;
}

export function validateTopicIdField(v: unknown, name = 'topic_id'): string {
  if (typeof v !== 'string' || !isValidTopicId(v)) {
    throw invalid(`\`${name}\` must be a topic id (lowercase letters, digits, ".", "_", "-"), got ${shown(v)}`, name);
  }
  return v;
}

/** `maxPagesCap`: the root's `[crawl] max_pages_cap` (a crawl asking for more is refused). */
export function validateSource(raw: unknown, index: number, maxPagesCap?: number): SourceRequest {
  if (!isRecord(raw)) throw invalid(`sources[${index}] must be an object with \`type\` and \`url\``, 'sources');
  const type = enumValue(raw.type, ['git', 'web', 'npm'] as const, `sources[${index}].type`);
  if (type === 'npm') return validatePackageSource(raw, index);
  if (typeof raw.url !== 'string' || raw.url.trim() === '') throw invalid(`sources[${index}].url must be a non-empty string`, 'sources');
  const url = raw.url.trim();
  if (type === 'web') {
    if (raw.ref !== undefined || raw.paths !== undefined) throw invalid(`sources[${index}]: web sources take no \`ref\` or \`paths\``, 'sources');
    validateWebUrl(url);
    const crawl = parseCrawl(raw.crawl, index, maxPagesCap);
    return crawl ? { type, url, crawl } : { type, url };
  }
  if (raw.crawl !== undefined) throw invalid(`sources[${index}]: git sources take no \`crawl\``, 'sources');
  validateGitUrl(url);
  if (/^https?:\/\/[^/@\s]+@/i.test(url)) {
    // As for web pages: a token in the URL would be written to topic.md, its commits and every answer.
    throw new TkomaError('INVALID_URL', 'git URLs with credentials are not accepted (they would be stored in topic.md and its commits): give git a credential helper instead (`git config --global credential.helper`)', {
      url: redactUrl(url),
      field: 'sources',
    });
  }
  const out: SourceRequest = { type, url };
  if (raw.ref !== undefined && raw.ref !== null) {
    if (typeof raw.ref !== 'string') throw invalid(`sources[${index}].ref must be a string`, 'sources');
    validateRef(raw.ref);
    out.ref = isFullCommitSha(raw.ref) ? raw.ref.toLowerCase() : raw.ref;
  }
  if (raw.version !== undefined && raw.version !== null) {
    if (out.ref !== undefined) throw invalid(`sources[${index}]: give \`ref\` or \`version\`, not both`, 'sources');
    out.version = versionField(raw.version, index, false);
  }
  if (raw.paths !== undefined && raw.paths !== null) {
    if (!Array.isArray(raw.paths) || !raw.paths.every((p) => typeof p === 'string')) {
      throw invalid(`sources[${index}].paths must be an array of strings`, 'sources');
    }
    const paths = normalizePaths(raw.paths as string[]);
    if (paths.length > 0) out.paths = paths;
  }
  return out;
}

/** A version field: exact or a range (git), or also a dist-tag (npm). */
function versionField(v: unknown, index: number, tags: boolean): string {
  const kind = typeof v === 'string' && v.length <= 256 ? versionSpecKind(v) : null;
  if (kind === null || (kind === 'tag' && !tags)) {
    throw invalid(`sources[${index}].version must be an exact version or a semver range${tags ? ' or a dist-tag' : ' over the tags'} (got ${shown(v)})`, 'sources');
  }
  return (v as string).trim();
}

function validatePackageSource(raw: Record<string, unknown>, index: number): SourceRequest {
  for (const key of ['url', 'ref', 'paths']) if (raw[key] !== undefined && raw[key] !== null) throw invalid(`sources[${index}]: npm sources take \`package\` and \`version\`, not \`${key}\``, 'sources');
  if (typeof raw.package !== 'string' || !isValidPackageName(raw.package.trim())) {
    throw invalid(`sources[${index}].package must be an npm package name (\`zod\`, \`@scope/name\`), got ${shown(raw.package)}`, 'sources');
  }
  const pkg = raw.package.trim();
  const version = raw.version === undefined || raw.version === null ? undefined : versionField(raw.version, index, true);
  return { type: 'npm', url: `npm:${pkg}`, package: pkg, ...(version ? { version } : {}) };
}

export const MAX_AGE_DAYS_CAP = 36_500;

/** `opts.maxPagesCap`: the root's `[crawl] max_pages_cap` (store/config.ts maxPagesCapOf); 1,000 when not given. */
export function validateCreateRequest(raw: unknown, names: FieldNames = {}, opts: { maxPagesCap?: number } = {}): CreateRequest {
  if (!isRecord(raw)) throw invalid('the request must be a JSON object');
  const title = optTitle(raw, names);
  if (!title) throw invalid(`\`${label(names, 'title')}\` is required`, label(names, 'title'));
  if (!Array.isArray(raw.sources) || raw.sources.length === 0) throw invalid('`sources` must list at least one source', 'sources');
  if (raw.sources.length > 50) throw invalid('`sources` lists more than 50 sources; split the topic', 'sources');
  const sources = raw.sources.map((s, i) => validateSource(s, i, opts.maxPagesCap));
  const seen = new Set<string>();
  for (const s of sources) {
    // One folder per package (npm/<package>): a package listed twice would share it.
    const key = s.type === 'npm' ? s.url : `${s.type} ${s.url} ${s.ref ?? s.version ?? ''} ${(s.paths ?? []).join(',')} ${s.crawl ? 'crawl' : ''}`;
    if (seen.has(key)) throw invalid(`source ${s.url} is listed twice`, 'sources');
    seen.add(key);
  }
  const idKey = raw.topic_id !== undefined ? 'topic_id' : 'id';
  const topicId = raw[idKey];
  const body = optString(raw, 'body', 100_000, names) ?? '';
  const limits = parseLimits(raw.limits, 'limits');
  return {
    topic_id: topicId === undefined || topicId === null ? topicIdFromTitle(title) : validateTopicIdField(topicId, label(names, idKey)),
    title,
    body: body.trim() ? body : `# ${title}\n`,
    sources,
    tags: optTags(raw, names) ?? [],
    max_age_days: optInt(raw, 'max_age_days', 0, MAX_AGE_DAYS_CAP, names) ?? 30,
    trust_score: optInt(raw, 'trust_score', 0, 10, names) ?? 5,
    ...(limits && Object.keys(limits).length > 0 ? { limits } : {}),
  };
}

export function validateUpdateRequest(raw: unknown, names: FieldNames = {}): UpdateRequest {
  if (!isRecord(raw)) throw invalid('the request must be a JSON object');
  const out: UpdateRequest = { topic_id: validateTopicIdField(raw.topic_id) };
  if (raw.status !== undefined && raw.status !== null) out.status = enumValue(raw.status, TOPIC_STATUSES, label(names, 'status'));
  const maxAge = optInt(raw, 'max_age_days', 0, MAX_AGE_DAYS_CAP, names);
  if (maxAge !== undefined) out.max_age_days = maxAge;
  const trust = optInt(raw, 'trust_score', 0, 10, names);
  if (trust !== undefined) out.trust_score = trust;
  const body = optString(raw, 'body', 100_000, names);
  if (body !== undefined) out.body = body;
  const title = optTitle(raw, names);
  if (title !== undefined) out.title = title;
  const tags = optTags(raw, names);
  if (tags !== undefined) out.tags = tags;
  if (Object.keys(out).length === 1) throw invalid('nothing to update: give status, max_age_days, body, tags, title or trust_score');
  return out;
}

export function validateFileStatusRequest(raw: unknown, names: FieldNames = {}): FileStatusRequest {
  if (!isRecord(raw)) throw invalid('the request must be a JSON object');
  const path = optString(raw, 'path', 4096, names);
  if (!path) throw invalid(`\`${label(names, 'path')}\` is required`, label(names, 'path'));
  const topicKey = raw.topic_id !== undefined ? 'topic_id' : 'topic';
  const out: FileStatusRequest = {
    topic_id: validateTopicIdField(raw[topicKey], label(names, topicKey)),
    path,
    status: enumValue(raw.status, FILE_STATUSES, label(names, 'status')),
  };
  // The reason becomes a warning line in the topic body: one line, nothing invisible.
  const reason = optString(raw, 'reason', 2000, names);
  if (reason !== undefined && oneLine(reason)) out.reason = oneLine(reason);
  if (out.status !== 'active' && !out.reason) throw invalid(`marking a file ${out.status} needs a \`${label(names, 'reason')}\``, label(names, 'reason'));
  return out;
}
