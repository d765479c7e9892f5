/**
 * Validation of requests given as flags or as JSON (`--input`), with the seed's field names.
 * Pure: every check runs before anything is fetched or written.
 */
import { TkomaError } from '../errors.js';
import { type LimitsOverride, parseLimits } from '../safety/limits.js';
import { isFullCommitSha, normalizePaths, validateGitUrl, validateRef } from '../sources/git-url.js';
import { validateWebUrl } from '../sources/web.js';
import { FILE_STATUSES, type FileStatus, isValidTopicId, TOPIC_STATUSES, type TopicStatus, topicIdFromTitle } from '../store/model.js';

export interface SourceRequest {
  type: 'git' | 'web';
  url: string;
  ref?: string;
  paths?: string[];
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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optString(o: Record<string, unknown>, key: string, max = 100_000): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`\`${key}\` must be a string`, key);
  if (v.length > max) throw invalid(`\`${key}\` is longer than ${max} characters`, key);
  return v;
}

function optInt(o: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max) throw invalid(`\`${key}\` must be a number from ${min} to ${max}`, key);
  return n;
}

function optTags(o: Record<string, unknown>): string[] | undefined {
  const v = o.tags;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((t) => typeof t === 'string')) throw invalid('`tags` must be an array of strings', 'tags');
  return [...new Set(v.map((t) => t.trim()).filter(Boolean))];
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

export function validateTopicIdField(v: unknown): string {
  if (typeof v !== 'string' || !isValidTopicId(v)) {
    throw invalid(`\`topic_id\` must be a topic id (lowercase letters, digits, ".", "_", "-"), got ${JSON.stringify(v)}`, 'topic_id');
  }
  return v;
}

export function validateSource(raw: unknown, index: number): SourceRequest {
  if (!isRecord(raw)) throw invalid(`sources[${index}] must be an object with \`type\` and \`url\``, 'sources');
  const type = enumValue(raw.type, ['git', 'web'] as const, `sources[${index}].type`);
  if (typeof raw.url !== 'string' || raw.url.trim() === '') throw invalid(`sources[${index}].url must be a non-empty string`, 'sources');
  const url = raw.url.trim();
  if (type === 'web') {
    if (raw.ref !== undefined || raw.paths !== undefined) throw invalid(`sources[${index}]: web sources take no \`ref\` or \`paths\``, 'sources');
    validateWebUrl(url);
    return { type, url };
  }
  validateGitUrl(url);
  const out: SourceRequest = { type, url };
  if (raw.ref !== undefined && raw.ref !== null) {
    if (typeof raw.ref !== 'string') throw invalid(`sources[${index}].ref must be a string`, 'sources');
    validateRef(raw.ref);
    out.ref = isFullCommitSha(raw.ref) ? raw.ref.toLowerCase() : raw.ref;
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

export function validateCreateRequest(raw: unknown): CreateRequest {
  if (!isRecord(raw)) throw invalid('the request must be a JSON object');
  const title = optString(raw, 'title', 200)?.trim();
  if (!title) throw invalid('`title` is required', 'title');
  if (!Array.isArray(raw.sources) || raw.sources.length === 0) throw invalid('`sources` must list at least one source', 'sources');
  if (raw.sources.length > 50) throw invalid('`sources` lists more than 50 sources; split the topic', 'sources');
  const sources = raw.sources.map((s, i) => validateSource(s, i));
  const seen = new Set<string>();
  for (const s of sources) {
    const key = `${s.type} ${s.url} ${s.ref ?? ''} ${(s.paths ?? []).join(',')}`;
    if (seen.has(key)) throw invalid(`source ${s.url} is listed twice`, 'sources');
    seen.add(key);
  }
  const topicId = raw.topic_id ?? raw.id;
  const body = optString(raw, 'body') ?? '';
  const limits = parseLimits(raw.limits, 'limits');
  return {
    topic_id: topicId === undefined || topicId === null ? topicIdFromTitle(title) : validateTopicIdField(topicId),
    title,
    body: body.trim() ? body : `# ${title}\n`,
    sources,
    tags: optTags(raw) ?? [],
    max_age_days: optInt(raw, 'max_age_days', 0, 36_500) ?? 30,
    trust_score: optInt(raw, 'trust_score', 0, 10) ?? 5,
    ...(limits && Object.keys(limits).length > 0 ? { limits } : {}),
  };
}

export function validateUpdateRequest(raw: unknown): UpdateRequest {
  if (!isRecord(raw)) throw invalid('the request must be a JSON object');
  const out: UpdateRequest = { topic_id: validateTopicIdField(raw.topic_id) };
  if (raw.status !== undefined && raw.status !== null) out.status = enumValue(raw.status, TOPIC_STATUSES, 'status');
  const maxAge = optInt(raw, 'max_age_days', 0, 36_500);
  if (maxAge !== undefined) out.max_age_days = maxAge;
  const trust = optInt(raw, 'trust_score', 0, 10);
  if (trust !== undefined) out.trust_score = trust;
  const body = optString(raw, 'body');
  if (body !== undefined) out.body = body;
  const title = optString(raw, 'title', 200);
  if (title !== undefined) {
    if (!title.trim()) throw invalid('`title` must not be empty', 'title');
    out.title = title.trim();
  }
  const tags = optTags(raw);
  if (tags !== undefined) out.tags = tags;
  if (Object.keys(out).length === 1) throw invalid('nothing to update: give status, max_age_days, body, tags, title or trust_score');
  return out;
}

export function validateFileStatusRequest(raw: unknown): FileStatusRequest {
  if (!isRecord(raw)) throw invalid('the request must be a JSON object');
  const path = optString(raw, 'path', 4096);
  if (!path) throw invalid('`path` is required', 'path');
  const out: FileStatusRequest = {
    topic_id: validateTopicIdField(raw.topic_id ?? raw.topic),
    path,
    status: enumValue(raw.status, FILE_STATUSES, 'status'),
  };
  const reason = optString(raw, 'reason', 2000);
  if (reason !== undefined && reason.trim()) out.reason = reason.trim();
  if (out.status !== 'active' && !out.reason) throw invalid(`marking a file ${out.status} needs a \`reason\``, 'reason');
  return out;
}
