/**
 * Reading and writing topics on disk: `references/<id>/topic.md`, the fetched files beside it,
 * and `.tkoma-files.jsonl`, the tracked per-file metadata (source, role, size, hash, fetched_at)
 * that the seeds keep in a database. Writes go through temp file + rename.
 */
import { existsSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';

import type { Role } from '../chunking/types.js';
import { TkomaError } from '../errors.js';
import { statOrNull } from '../file-memo.js';
import { FRONT_CACHE_FROM, keepFront, readCachedFront } from './front-cache.js';
import { parseTopicMd, serializeTopicMd, shallowCopyFront } from './frontmatter.js';
import { eachPathRecord, parsePathRecord, pathRecordsPieces, readPathRecords } from './path-records.js';
import { isValidTopicId, type TopicFront } from './model.js';
import { referencesDir } from './root-path.js';
import { SKIPPED_FILE } from './skipped.js';

export const TOPIC_FILE = 'topic.md';
export const MANIFEST_FILE = '.tkoma-files.jsonl';
/** Names a fetched file may not take at the top of a topic folder. */
export const RESERVED_NAMES = new Set([TOPIC_FILE, MANIFEST_FILE, SKIPPED_FILE]);

/**
 * True for a path (relative to the topic folder) a fetched file may not take: topic.md and the
 * manifest, compared case-folded (on case-insensitive disks `Topic.md` is topic.md). The one rule
 * for both phases: approval counts what the fetch will keep.
 */
export function isReservedName(rel: string): boolean {
  return RESERVED_NAMES.has(rel.toLowerCase());
}

export interface FileRecord {
  path: string;
  /** URL of the source this file came from. */
  source_url: string;
  role: Role;
  bytes: number;
  sha256: string;
  fetched_at: string;
  /** git sources: the commit the file was read at. */
  commit?: string;
  /** The version the file is at: an npm package's exact version, or the git tag it was read at. */
  version?: string;
  /** crawled pages: the page's URL (its key), where it was read from after redirects, and the
   * validators for the next conditional request. */
  page_url?: string;
  final_url?: string;
  etag?: string;
  last_modified?: string;
  /**
   * Possible prompt injection or hidden text found at fetch time (src/lib/safety/injection.ts),
   * bounded. `line` is 1-based in this file; 0 means the file as a whole (e.g. hidden HTML text).
   */
  flags?: FileFlag[];
}

export interface FileFlag {
  kind: string;
  line: number;
  excerpt: string;
}

export interface LoadedTopic {
  front: TopicFront;
  body: string;
  dir: string;
}

export function assertTopicId(id: string): void {
  if (!isValidTopicId(id)) {
    throw new TkomaError('INVALID_INPUT', `invalid topic id "${id}": lowercase letters, digits, ".", "_" and "-" only`, { topic_id: id });
  }
}

export function topicDir(root: string, id: string): string {
  assertTopicId(id);
  return join(referencesDir(root), id);
}

export function topicExists(root: string, id: string): boolean {
  return existsSync(join(topicDir(root, id), TOPIC_FILE));
}

export async function readTopic(root: string, id: string): Promise<LoadedTopic> {
  const dir = topicDir(root, id);
  const file = join(dir, TOPIC_FILE);
  const rel = relative(root, file) || file;
  // Unchanged since the last read (same inode, size and mtime): no need to read it again. The stat
  // is synchronous: a warm server does this for every answer, and a thread-pool round trip cost
  // more than the stat on a busy machine.
  const st = statOrNull(file);
  const hit = parsed.get(file);
  if (st && hit && hit.ino === st.ino && hit.size === st.size && hit.mtimeMs === st.mtimeMs && hit.front.id === id) {
    return { front: copyFront(hit.front), body: hit.body, dir };
  }
  // A large note's front, kept beside the root's state (front-cache.ts): its `files` list is
  // most of the text, and most readers never ask for it.
  const large = st !== null && st.size >= FRONT_CACHE_FROM;
  const kept = large ? readCachedFront(root, id, st, () => filesFromNote(file, rel)) : null;
  if (kept) {
    parsed.set(file, { text: null, front: copyFront(kept.front), body: kept.body, ino: st!.ino, size: st!.size, mtimeMs: st!.mtimeMs });
    return { front: kept.front, body: kept.body, dir };
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new TkomaError('TOPIC_NOT_FOUND', `no topic "${id}"`, { topic_id: id });
  }
  const { front, body } = parseNote(file, text, rel, st);
  if (front.id !== id) throw idMismatch(rel, text, id, front.id);
  if (large) keepFront(root, id, st!, front, body);
  return { front, body, dir };
}

/** The `files` of the note as it is now: a kept front reads them when a caller first asks. */
function filesFromNote(file: string, rel: string): readonly string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new TkomaError('MALFORMED_TOPIC', `${rel}: could not be read again for its \`files\``, { file: rel });
  }
  return parseTopicMd(text, rel).front.files;
}

/**
 * The last parse of each topic.md, reused while the file is unchanged (same inode, size and mtime,
 * or the same text): a warm server reads the topics' notes for every search, and re-parsing a large
 * `files` list cost about a millisecond a query. Callers get their own copy, so a command that edits
 * the front never changes the cached one.
 */
const parsed = new Map<string, { text: string | null; front: TopicFront; body: string; ino: number; size: number; mtimeMs: number }>();

function parseNote(file: string, text: string, rel: string, st: Stats | null): { front: TopicFront; body: string } {
  const hit = parsed.get(file);
  const at = st ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } : { ino: -1, size: -1, mtimeMs: -1 };
  if (hit && hit.text === text) {
    parsed.set(file, { ...hit, ...at });
    return { front: copyFront(hit.front), body: hit.body };
  }
  const out = parseTopicMd(text, rel);
  parsed.set(file, { text, front: copyFront(out.front), body: out.body, ...at });
  return out;
}

/** A deep copy of a front (plain strings, numbers, arrays and small objects); far cheaper than structuredClone. */
function copyFront(f: TopicFront): TopicFront {
  const copy: TopicFront = shallowCopyFront(f);
  copy.tags = [...f.tags];
  copy.sources = f.sources.map((x) => (x.paths ? { ...x, paths: [...x.paths] } : { ...x }));
  if (f.created_by) copy.created_by = { ...f.created_by };
  if (f.file_status) copy.file_status = f.file_status.map((e) => ({ ...e }));
  return copy;
}

/**
 * The folder name is the topic id. A folder renamed by hand (`git mv references/a references/b`)
 * keeps `id = "a"` inside: that is reported, never guessed, as MALFORMED_TOPIC with the file, the
 * line of `id` and both names (`reason: "id_mismatch"`), by every command that reads the topic.
 */
function idMismatch(file: string, text: string, folder: string, id: string): TkomaError {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l, i) => i > 0 && /^\s*id\s*=/.test(l));
  const line = at >= 0 ? at + 1 : 1;
  return new TkomaError(
    'MALFORMED_TOPIC',
    `${file}:${line}: \`id\` is "${id}" but the folder is "${folder}" (the folder name is the topic id): rename the folder back, or set \`id = "${folder}"\``,
    { file, line, reason: 'id_mismatch', folder_id: folder, topic_md_id: id },
  );
}

export async function listTopicIds(root: string): Promise<string[]> {
  let entries;
  try {
    // Synchronous, like the existsSync below: one short directory read per search.
    entries = readdirSync(referencesDir(root), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() && isValidTopicId(e.name) && existsSync(join(referencesDir(root), e.name, TOPIC_FILE)))
    .map((e) => e.name)
    .sort();
}

export interface BrokenTopic {
  topic_id: string;
  error: { code: string; message: string; file?: string; line?: number };
}

/** Every topic that parses, plus the ones that do not, so one hand-broken note never hides the rest. */
export async function loadAllTopics(root: string): Promise<{ topics: LoadedTopic[]; broken: BrokenTopic[] }> {
  const topics: LoadedTopic[] = [];
  const broken: BrokenTopic[] = [];
  for (const id of await listTopicIds(root)) {
    try {
      topics.push(await readTopic(root, id));
    } catch (err) {
      if (!(err instanceof TkomaError)) throw err;
      broken.push({ topic_id: id, error: { code: err.code, message: err.message, ...(err.details as object) } });
    }
  }
  return { topics, broken };
}

async function writeAtomic(file: string, content: string | Iterable<Buffer>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(tmp, content);
  await rename(tmp, file);
}

/**
 * The topic.md text for `front` and `body`, read back before anything is written: a note the
 * reader would reject (MALFORMED_TOPIC on every later command) is refused here instead, whatever
 * slipped past the request's validation.
 */
export function renderTopicMd(front: TopicFront, body: string): string {
  const text = serializeTopicMd(front, body);
  try {
    parseTopicMd(text, TOPIC_FILE);
  } catch (err) {
    if (!(err instanceof TkomaError)) throw err;
    throw new TkomaError('INVALID_INPUT', `refusing to write a topic.md the reader would reject: ${err.message}`, {
      ...(typeof err.details.line === 'number' ? { line: err.details.line } : {}),
    });
  }
  return text;
}

export async function writeTopic(dir: string, front: TopicFront, body: string): Promise<void> {
  await writeAtomic(join(dir, TOPIC_FILE), renderTopicMd(front, body));
}

export function readManifest(dir: string): Promise<FileRecord[]> {
  return readPathRecords<FileRecord>(join(dir, MANIFEST_FILE));
}

/** One manifest line as a record, or null for a blank, damaged or unsafe line. */
export function parseManifestLine(line: string): FileRecord | null {
  return parsePathRecord<FileRecord>(line);
}

export async function writeManifest(dir: string, records: FileRecord[]): Promise<void> {
  await writeAtomic(join(dir, MANIFEST_FILE), pathRecordsPieces(records));
}

/**
 * Each manifest path's role, read a piece at a time: what a sync needs of the manifest, without
 * every record of a large topic in memory (690k records held ~400 MB at a million chunks). With
 * `fallback`, only the roles it would not give are kept: a sync falls back to the path's own
 * role, which a fetched file's record repeats, so a create keeps almost none (a path and an entry
 * per file were ~100 bytes each, 65 MB at 692k files).
 */
export async function readManifestRoles(dir: string, fallback?: (path: string) => FileRecord['role'] | undefined): Promise<Map<string, FileRecord['role']>> {
  const roles = new Map<string, FileRecord['role']>();
  const names = new Map<string, FileRecord['role']>(); // one copy of each role name
  await eachPathRecord<FileRecord>(join(dir, MANIFEST_FILE), (r) => {
    if (fallback && r.role === fallback(r.path)) {
      roles.delete(r.path); // a later line of the same path wins, as in a whole read
      return;
    }
    let role = names.get(r.role);
    if (role === undefined) names.set(r.role, (role = r.role));
    roles.set(r.path, role);
  });
  return roles;
}

/**
 * Resolves a user-given path inside a topic folder, refusing anything that could address a file
 * outside it: absolute paths, `..`, NUL bytes, backslashes, the manifest.
 */
export function resolveTopicPath(dir: string, userPath: string): { rel: string; abs: string } {
  const bad = (why: string): TkomaError => new TkomaError('INVALID_PATH', `invalid path "${userPath}": ${why}`, { path: userPath });
  if (typeof userPath !== 'string' || userPath.length === 0) throw bad('empty');
  if (userPath.includes('\0')) throw bad('contains a NUL byte');
  if (userPath.includes('\\')) throw bad('use forward slashes');
  if (isAbsolute(userPath) || userPath.startsWith('/')) throw bad('must be relative to the topic folder');
  const rel = posix.normalize(userPath).replace(/^\.\/+/, '');
  if (rel === '.' || rel.split('/').includes('..')) throw bad('must stay inside the topic folder');
  // Case-folded: on case-insensitive file systems `.TKOMA-FILES.JSONL` is the manifest too.
  if (rel.toLowerCase() === MANIFEST_FILE || rel.toLowerCase() === SKIPPED_FILE) throw bad('is tkoma-ref metadata, not a reference file');
  const abs = resolve(dir, rel);
  if (!abs.startsWith(resolve(dir) + sep)) throw bad('must stay inside the topic folder');
  return { rel, abs };
}
