/**
 * A fetched commit's file list, which files the user's `paths` select, and reading or
 * downloading exactly the blobs wanted from a bare partial clone.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit, uploadPackArgs, type GitRunOptions } from './git-run.js';

export interface TreeEntry {
  /** 100644, 100755, 120000 (symlink), 160000 (submodule) */
  mode: string;
  type: 'blob' | 'commit' | 'tree';
  oid: string;
  path: string;
}

/** The few modes and types a tree holds, one string each (a string per entry was ~50 bytes of it). */
const MODES = new Map<string, string>();
const TYPES: Record<string, TreeEntry['type']> = { blob: 'blob', commit: 'commit', tree: 'tree' };

/**
 * Parses `git ls-tree -r -z` output, read from its bytes: each path and id is a string of its own.
 * Sliced from the whole text decoded first, every path kept that text alive (80 bytes an entry,
 * 55 MB at 692k entries) for as long as any entry lived, with an array of its records beside it.
 */
export function parseLsTree(out: string | Buffer): TreeEntry[] {
  const buf = typeof out === 'string' ? Buffer.from(out, 'utf8') : out;
  const entries: TreeEntry[] = [];
  for (let at = 0; at < buf.length; ) {
    const nul = buf.indexOf(0, at);
    const end = nul < 0 ? buf.length : nul;
    const tab = buf.indexOf(9, at);
    if (end > at && tab >= 0 && tab < end) {
      const sp1 = buf.indexOf(32, at);
      const sp2 = buf.indexOf(32, sp1 + 1);
      const modeText = buf.toString('latin1', at, sp1);
      let mode = MODES.get(modeText);
      if (mode === undefined) {
        mode = modeText;
        if (MODES.size < 16) MODES.set(modeText, mode);
      }
      const typeText = buf.toString('latin1', sp1 + 1, sp2);
      const type = TYPES[typeText] ?? (typeText as TreeEntry['type']);
      entries.push({ mode, type, oid: buf.toString('latin1', sp2 + 1, tab), path: buf.toString('utf8', tab + 1, end) });
    }
    at = end + 1;
  }
  return entries;
}

/** Whether one normalised user path selects a repository path: "docs/" a folder, "x" file or folder. */
export function pathMatches(path: string, wanted: string): boolean {
  if (wanted.endsWith('/')) return path.startsWith(wanted);
  return path === wanted || path.startsWith(`${wanted}/`);
}

export function isSelected(path: string, paths: string[] | undefined): boolean {
  if (!paths || paths.length === 0) return true;
  return paths.some((w) => pathMatches(path, w));
}

/** The user paths that select none of the given repository paths. */
export function unmatchedPaths(repoPaths: string[], paths: string[] | undefined): string[] {
  if (!paths || paths.length === 0) return [];
  return paths.filter((w) => !repoPaths.some((p) => pathMatches(p, w)));
}

export async function listTree(cwd: string, commit: string, opts: GitRunOptions = {}): Promise<TreeEntry[]> {
  const { stdout } = await runGit(['ls-tree', '-r', '-z', '--full-tree', commit], { ...opts, cwd });
  return parseLsTree(stdout);
}

/**
 * Sizes of the blobs present in the local object store. Never fetches: `--batch-all-objects`
 * only enumerates what is there, so missing blobs of a partial clone are simply absent.
 * `commits` is given every commit id met.
 */
export async function presentBlobSizes(cwd: string, opts: GitRunOptions = {}, commits?: Set<string>): Promise<Map<string, number>> {
  const { stdout } = await runGit(
    ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(objectsize)'],
    { ...opts, cwd },
  );
  const sizes = new Map<string, number>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const [oid, type, size] = line.split(' ');
    if (type === 'blob' && oid && size) sizes.set(oid, Number(size));
    else if (type === 'commit' && oid) commits?.add(oid);
  }
  return sizes;
}

/**
 * Parses `git cat-file --batch` output into oid → content (or its first `headBytes` bytes).
 * Objects reported missing are left out.
 */
export function parseCatFileBatch(out: Buffer, headBytes = Number.POSITIVE_INFINITY): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(10, pos);
    if (nl < 0) break;
    const [oid, type, size] = out.subarray(pos, nl).toString('utf8').split(' ');
    pos = nl + 1;
    if (type === 'missing' || type === 'ambiguous' || size === undefined) continue;
    const n = Number(size);
    blobs.set(oid!, out.subarray(pos, pos + Math.min(n, headBytes)));
    pos += n + 1; // content, then "\n"
  }
  return blobs;
}

/**
 * Contents of blobs known to be present, through one `git cat-file --batch`. Callers batch the
 * oids to bound memory. Never call it for absent blobs: git would fetch them one by one.
 */
export async function readBlobs(
  cwd: string,
  oids: string[],
  opts: GitRunOptions & { headBytes?: number } = {},
): Promise<Map<string, Buffer>> {
  if (oids.length === 0) return new Map();
  const { stdout } = await runGit(['cat-file', '--batch'], { ...opts, cwd, input: oids.join('\n') + '\n' });
  return parseCatFileBatch(stdout, opts.headBytes);
}

/**
 * Downloads the given blobs from origin in one request, the way git's own lazy fetch of a
 * partial clone does (wanted objects are sent whatever the filter).
 */
export async function fetchBlobs(cwd: string, oids: string[], opts: GitRunOptions = {}): Promise<void> {
  if (oids.length === 0) return;
  await runGit(
    [
      '-c',
      'fetch.negotiationAlgorithm=noop',
      'fetch',
      '-q',
      '--no-tags',
      '--no-write-fetch-head',
      '--recurse-submodules=no',
      '--filter=blob:none',
      ...uploadPackArgs(opts.allowFile ?? false),
      '--stdin',
      'origin',
    ],
    { ...opts, cwd, input: oids.join('\n') + '\n' },
  );
}

/** A path as fast-import reads it: C-style quoted, so any name (a leading quote, a space) is one path. */
export function fastImportPath(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Writes one pack into `dir` (`pack-<hash>.pack` and its index) of the given files' blobs and of
 * the folder trees they make, as `git add` and `git commit` will compute them in the root (plain
 * files, mode 100644): git then finds every one stored instead of writing it. A topic of 10,970
 * files in 2,257 folders had its commit write 2,257 loose trees, one file create each. The trees
 * are built by fast-import (in memory, reusing those the download brought); the downloaded packs'
 * compressed data is copied as it is (no delta search: `--window=0` took 30 ms for 5,183 blobs,
 * the default window 450 ms).
 */
export async function packForRoot(cwd: string, files: { path: string; oid: string }[], dir: string, opts: GitRunOptions = {}): Promise<void> {
  if (files.length === 0) return;
  const ref = 'refs/heads/tkoma-trees';
  const folders = new Set<string>();
  for (const f of files) for (let i = f.path.indexOf('/'); i > 0; i = f.path.indexOf('/', i + 1)) folders.add(f.path.slice(0, i));
  // Each folder's tree id from fast-import itself (`ls` after the commit; it was a `git ls-tree
  // -r -d -t` of its own), and its objects kept in its pack: under 100 objects it ran `git
  // unpack-objects` to write them loose.
  const { stdout: listed } = await runGit(['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], { ...opts, cwd, input: fastImportCommands(ref, files, folders) });
  let trees = listed
    .toString('utf8')
    .split('\n')
    .map((l) => /^040000 tree ([0-9a-f]{40,64})\t/.exec(l)?.[1])
    .filter((oid): oid is string => oid !== undefined);
  if (trees.length !== folders.size) {
    const { stdout } = await runGit(['ls-tree', '-r', '-d', '-t', '-z', ref], { ...opts, cwd });
    trees = parseLsTree(stdout.toString('utf8')).map((e) => e.oid);
  }
  await mkdir(dir, { recursive: true });
  const oids = new Set<string>();
  for (const f of files) oids.add(f.oid);
  for (const t of trees) oids.add(t);
  await runGit(['pack-objects', '-q', '--window=0', join(dir, 'pack')], { ...opts, cwd, input: inLines([...oids]) });
}

/** Lines of `PIECE_LINES` at a time, each newline-terminated. */
const PIECE_LINES = 4096;

function* inLines(lines: readonly string[]): Generator<string> {
  for (let i = 0; i < lines.length; i += PIECE_LINES) yield lines.slice(i, i + PIECE_LINES).join('\n') + '\n';
}

/**
 * The fast-import commands of packForRoot a few thousand lines at a time, as git reads them: one
 * commit of the files, then `ls` of each folder. Made whole they were a string per file and their
 * join (~120 MB at 692k files) beside the child's work.
 */
function* fastImportCommands(ref: string, files: readonly { path: string; oid: string }[], folders: ReadonlySet<string>): Generator<string> {
  yield `commit ${ref}\nmark :1\ncommitter tkoma-ref <tkoma-ref@localhost> 0 +0000\ndata 0\n`;
  for (let i = 0; i < files.length; i += PIECE_LINES) {
    yield files
      .slice(i, i + PIECE_LINES)
      .map((f) => `M 100644 ${f.oid} ${fastImportPath(f.path)}\n`)
      .join('');
  }
  yield '\n';
  yield* inLines([...folders].map((d) => `ls :1 ${fastImportPath(d)}`));
}
