/**
 * topic.md: TOML front matter between `+++` lines, then the ghost's markdown body.
 *
 * Parsing reads the TOML subset we write quickly and leaves anything else to smol-toml (a
 * maintained TOML 1.0 parser that reports line and column): see toml.ts. Writing is our own small
 * serialiser for this one known schema, because generic stringifiers print long arrays on one line
 * and reorder keys; we want the seed's layout exactly, one file per line when the list is long, so
 * `git diff` of a topic reads well.
 */
import { TkomaError } from '../errors.js';
import {
  FILE_STATUSES,
  type FileStatusEntry,
  TOPIC_STATUSES,
  type TopicFront,
  type TopicSource,
} from './model.js';
import { parseToml, smolToml } from './toml.js';
import { LineArray } from './toml-subset.js';
import { CRAWL_DEFAULTS } from '../sources/crawl/options.js';

export interface ParsedTopic {
  front: TopicFront;
  body: string;
}

const FENCE = '+++';

function malformed(file: string, line: number, message: string): TkomaError {
  return new TkomaError('MALFORMED_TOPIC', `${file}:${line}: ${message}`, { file, line });
}

/** Line (1-based, in the whole file) where `key = ` first appears in the front matter. */
function lineOfKey(lines: string[], key: string): number {
  const re = new RegExp(`^\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=`);
  const idx = lines.findIndex((l) => re.test(l));
  return idx >= 0 ? idx + 1 : 1;
}

/** TOML dates come back as Date objects when a hand edit leaves them unquoted: keep ISO strings. */
function asIsoString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  return undefined;
}

/**
 * The front matter's text, the body and the lines (made only when an error needs a line number).
 * A large topic's front matter lists every file (5k lines at SciFact scale) and every cold search
 * reads it: the closing fence is found with indexOf instead of splitting the whole text into
 * lines. A text with CR falls back to the split, which turns CRLF into LF as it always did.
 */
export function splitFront(text: string, file: string): { toml: string; body: string; lines: () => string[] } {
  let lines: string[] | null = null;
  const allLines = (): string[] => (lines ??= text.split(/\r?\n/));
  const notOpened = (): TkomaError => malformed(file, 1, 'topic.md must start with a `+++` line (TOML front matter)');
  const notClosed = (): TkomaError => malformed(file, allLines().length, 'front matter is not closed by a `+++` line');
  const firstEnd = text.indexOf('\n');
  if (text.includes('\r') || firstEnd < 0) {
    const all = allLines();
    if (all[0]?.trim() !== FENCE) throw notOpened();
    const end = all.findIndex((l, i) => i > 0 && l.trim() === FENCE);
    if (end < 0) throw notClosed();
    return { toml: all.slice(1, end).join('\n'), body: all.slice(end + 1).join('\n').replace(/^\n/, ''), lines: allLines };
  }
  if (text.slice(0, firstEnd).trim() !== FENCE) throw notOpened();
  // A closing fence line holds `+++`: look only at the lines that do.
  for (let at = text.indexOf(FENCE, firstEnd + 1); at >= 0; ) {
    const lineStart = text.lastIndexOf('\n', at) + 1;
    const nl = text.indexOf('\n', at);
    const lineEnd = nl < 0 ? text.length : nl;
    if (text.slice(lineStart, lineEnd).trim() === FENCE) {
      const body = nl < 0 ? '' : text.slice(nl + 1).replace(/^\n/, '');
      return { toml: text.slice(firstEnd + 1, Math.max(firstEnd + 1, lineStart - 1)), body, lines: allLines };
    }
    at = nl < 0 ? -1 : text.indexOf(FENCE, nl + 1);
  }
  throw notClosed();
}

/** Root keys read lazily: `files` lists every file of the topic, and a search never reads it. */
const LAZY_KEYS: ReadonlySet<string> = new Set(['files']);

/** Where a lazy `files` comes from: the note's array lines, or the note read again (front-cache.ts). */
interface FileItems {
  items(): readonly string[];
  /** How many there are, without making them. */
  count(): number;
}

/** Fronts whose `files` is still unread: their lines. */
const unread = new WeakMap<TopicFront, FileItems>();

/**
 * `front.files` made from its lines when first read (each front its own copy); assigning sets it.
 * It stays an ordinary enumerable field in its place: spreads, JSON and equality see the array.
 */
function lazyFiles(front: TopicFront, lines: FileItems): void {
  let value: string[] | null = null;
  unread.set(front, lines);
  Object.defineProperty(front, 'files', {
    enumerable: true,
    configurable: true,
    get: (): string[] => {
      if (value === null) {
        value = [...lines.items()];
        unread.delete(front);
      }
      return value;
    },
    set: (v: string[]): void => {
      value = v;
      unread.delete(front);
    },
  });
}

/**
 * A copy of `front`'s own fields, its `files` still unread when the original's is (every other
 * field as is: the caller copies the nested ones it needs to).
 */
export function shallowCopyFront(front: TopicFront): TopicFront {
  const lines = unread.get(front);
  if (!lines) return { ...front, files: [...front.files] };
  const copy = {} as Record<string, unknown>;
  for (const key of Object.keys(front)) copy[key] = key === 'files' ? [] : (front as unknown as Record<string, unknown>)[key];
  lazyFiles(copy as unknown as TopicFront, lines);
  return copy as unknown as TopicFront;
}

/**
 * `front` with its `files` made by `items` when first read, in the key's place (a front kept
 * without its files: front-cache.ts). Copies stay lazy as a parsed front's do.
 */
export function withLazyFiles(front: TopicFront, items: () => readonly string[], count: number): TopicFront {
  lazyFiles(front, { items, count: () => count });
  return front;
}

/** `front.files.length`, without making the strings of a list still unread (`topic list` of a large topic). */
export function fileCountOf(front: TopicFront): number {
  return unread.get(front)?.count() ?? front.files.length;
}

export function parseTopicMd(text: string, file: string): ParsedTopic {
  const { toml: tomlText, body, lines } = splitFront(text, file);
  let data: Record<string, unknown>;
  try {
    data = parseToml(tomlText, LAZY_KEYS) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof smolToml().TomlError) {
      const firstLine = String(err.message).split('\n')[0];
      throw malformed(file, (err.line ?? 0) + 1, `invalid TOML: ${firstLine}`);
    }
    throw malformed(file, 1, `invalid TOML: ${String(err)}`);
  }
  return { front: validateFront(data, lines, file), body };
}

function validateFront(d: Record<string, unknown>, lines: () => string[], file: string): TopicFront {
  const need = (key: string, ok: boolean, what: string): void => {
    if (!ok) throw malformed(file, lineOfKey(lines(), key), `\`${key}\` ${what}`);
  };
  const str = (key: string, required = true): string | undefined => {
    const v = key.endsWith('_at') ? asIsoString(d[key]) : d[key];
    if (v === undefined) {
      need(key, !required, 'is required');
      return undefined;
    }
    need(key, typeof v === 'string', 'must be a string');
    return v as string;
  };
  const id = str('id')!;
  need('id', /^[a-z0-9][a-z0-9._-]*$/.test(id), 'must be lowercase letters, digits, `.`, `_` or `-`');
  const title = str('title')!;
  const type = str('type')!;
  need('type', type === 'ReferenceTopic', 'must be "ReferenceTopic"');
  const status = (str('status', false) ?? 'active') as TopicFront['status'];
  need('status', (TOPIC_STATUSES as readonly string[]).includes(status), `must be one of ${TOPIC_STATUSES.join(', ')}`);
  const trust = d.trust_score ?? 5;
  need('trust_score', typeof trust === 'number' && trust >= 0 && trust <= 10, 'must be a number from 0 to 10');
  const maxAge = d.max_age_days ?? 0;
  need('max_age_days', Number.isInteger(maxAge) && (maxAge as number) >= 0, 'must be a whole number ≥ 0');
  const tags = d.tags ?? [];
  need('tags', Array.isArray(tags) && tags.every((t) => typeof t === 'string'), 'must be an array of strings');
  const files = d.files ?? [];
  // A LineArray's lines were checked to be strings when it was read.
  need('files', files instanceof LineArray || (Array.isArray(files) && files.every((t) => typeof t === 'string')), 'must be an array of strings');

  const createdBy = d.created_by;
  need('created_by', createdBy === undefined || (typeof createdBy === 'object' && !Array.isArray(createdBy)), 'must be a table');

  const sources = (d.sources ?? []) as unknown[];
  need('sources', Array.isArray(sources), 'must be an array of tables ([[sources]])');
  const parsedSources: TopicSource[] = sources.map((s) => {
    const src = s as Record<string, unknown>;
    const npm = typeof src === 'object' && src.type === 'npm' && typeof src.package === 'string';
    const ok = npm || (typeof src === 'object' && (src.type === 'git' || src.type === 'web') && typeof src.url === 'string');
    need('type', ok, 'of every [[sources]] entry must be "git" or "web" with a string `url`, or "npm" with a string `package`');
    const out: TopicSource = npm ? { type: 'npm', url: `npm:${src.package as string}`, package: src.package as string } : { type: src.type as 'git' | 'web', url: src.url as string };
    if (typeof src.ref === 'string') out.ref = src.ref;
    if (src.ref_kind === 'branch' || src.ref_kind === 'tag') out.ref_kind = src.ref_kind;
    if (typeof src.commit === 'string') out.commit = src.commit;
    if (Array.isArray(src.paths)) out.paths = src.paths.map(String);
    if (typeof src.final_url === 'string') out.final_url = src.final_url;
    for (const key of VERSION_KEYS) if (typeof src[key] === 'string') out[key] = src[key] as string;
    // A crawl is written as flat keys, which the fast TOML reader takes (toml-subset.ts).
    if (out.type === 'web' && (src.crawl_scope === 'prefix' || src.crawl_scope === 'host')) {
      const globs = (v: unknown) => (Array.isArray(v) && v.length > 0 ? v.map(String) : undefined);
      const include = globs(src.crawl_include);
      const exclude = globs(src.crawl_exclude);
      out.crawl = {
        scope: src.crawl_scope,
        ...(include ? { include } : {}),
        ...(exclude ? { exclude } : {}),
        max_pages: typeof src.crawl_max_pages === 'number' ? src.crawl_max_pages : CRAWL_DEFAULTS.max_pages,
        max_depth: typeof src.crawl_max_depth === 'number' ? src.crawl_max_depth : CRAWL_DEFAULTS.max_depth,
      };
    }
    return out;
  });

  const fileStatus = (d.file_status ?? []) as unknown[];
  need('file_status', Array.isArray(fileStatus), 'must be an array of tables ([[file_status]])');
  const parsedStatus: FileStatusEntry[] = fileStatus.map((s) => {
    const e = s as Record<string, unknown>;
    need('status', typeof e?.path === 'string' && (FILE_STATUSES as readonly string[]).includes(String(e.status)),
      `of every [[file_status]] entry must be one of ${FILE_STATUSES.join(', ')} with a string \`path\``);
    return {
      path: e.path as string,
      status: e.status as FileStatusEntry['status'],
      ...(typeof e.reason === 'string' ? { reason: e.reason } : {}),
      updated_at: asIsoString(e.updated_at) ?? '',
    };
  });

  const front: TopicFront = {
    id,
    title,
    type: 'ReferenceTopic',
    created_at: str('created_at', false) ?? '',
    trust_score: trust as number,
    tags: tags as string[],
    status,
    fetched_at: str('fetched_at', false) ?? '',
    max_age_days: maxAge as number,
    files: files instanceof LineArray ? [] : (files as string[]),
    sources: parsedSources,
  };
  if (files instanceof LineArray) lazyFiles(front, files);
  if (createdBy && typeof createdBy === 'object') {
    const cb = createdBy as Record<string, unknown>;
    front.created_by = {
      ...(typeof cb.ghost === 'string' ? { ghost: cb.ghost } : {}),
      ...(typeof cb.model === 'string' ? { model: cb.model } : {}),
    };
  }
  if (parsedStatus.length > 0) front.file_status = parsedStatus;
  return front;
}

/** One `key = value` line, values escaped by smol-toml. */
function kv(key: string, value: unknown): string {
  return smolToml().stringify({ [key]: value }).trim();
}

/** A TOML string literal, escaped by smol-toml. */
function tomlString(v: string): string {
  return kv('x', v).slice('x = '.length);
}

/** `key = ["a", "b"]` as in the seed, or one value per line when the list is long. */
function arrayLines(key: string, values: string[]): string {
  if (values.length <= 5) return `${key} = [${values.map(tomlString).join(', ')}]`;
  return `${key} = [\n${values.map((v) => `  ${tomlString(v)},`).join('\n')}\n]`;
}

/** The version fields of a `[[sources]]` entry (npm packages, git version ranges), in the order written. */
const VERSION_KEYS = ['version', 'resolved_version', 'upstream_version', 'integrity', 'tarball', 'repository', 'git_head'] as const;

export function serializeTopicMd(front: TopicFront, body: string): string {
  const out: string[] = [FENCE];
  out.push(kv('id', front.id), kv('title', front.title), kv('type', front.type), kv('created_at', front.created_at));
  out.push(kv('trust_score', front.trust_score), arrayLines('tags', front.tags), kv('status', front.status));
  out.push(kv('fetched_at', front.fetched_at), kv('max_age_days', front.max_age_days), arrayLines('files', front.files));
  if (front.created_by && (front.created_by.ghost || front.created_by.model)) {
    out.push('', '[created_by]');
    if (front.created_by.ghost) out.push(kv('ghost', front.created_by.ghost));
    if (front.created_by.model) out.push(kv('model', front.created_by.model));
  }
  for (const s of front.sources) {
    out.push('', '[[sources]]', kv('type', s.type), s.type === 'npm' ? kv('package', s.package ?? s.url.replace(/^npm:/, '')) : kv('url', s.url));
    if (s.ref !== undefined) out.push(kv('ref', s.ref));
    if (s.ref_kind !== undefined) out.push(kv('ref_kind', s.ref_kind));
    if (s.commit !== undefined) out.push(kv('commit', s.commit));
    if (s.paths !== undefined) out.push(arrayLines('paths', s.paths));
    if (s.final_url !== undefined) out.push(kv('final_url', s.final_url));
    for (const key of VERSION_KEYS) if (s[key] !== undefined) out.push(kv(key, s[key]));
    if (s.crawl) {
      out.push(kv('crawl_scope', s.crawl.scope), kv('crawl_max_pages', s.crawl.max_pages), kv('crawl_max_depth', s.crawl.max_depth));
      if (s.crawl.include) out.push(arrayLines('crawl_include', s.crawl.include));
      if (s.crawl.exclude) out.push(arrayLines('crawl_exclude', s.crawl.exclude));
    }
  }
  for (const f of front.file_status ?? []) {
    out.push('', '[[file_status]]', kv('path', f.path), kv('status', f.status));
    if (f.reason !== undefined) out.push(kv('reason', f.reason));
    out.push(kv('updated_at', f.updated_at));
  }
  out.push(FENCE, '');
  const trimmedBody = body.replace(/^\n+/, '').replace(/\s+$/, '');
  return out.join('\n') + '\n' + trimmedBody + '\n';
}
