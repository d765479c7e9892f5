/**
 * What a fetch left out, summed up for people and ghosts: counts per reason, per folder, a few
 * sample paths, and how to bring a skipped file in. Pure; the full list is the topic's
 * `.tkoma-skipped.jsonl` (src/lib/store/skipped.ts).
 */

export interface SkippedEntry {
  path: string;
  reason: string;
}

export interface FolderCount {
  /** `docs/api/`, `dist/`, or `./` for the top of the topic. */
  folder: string;
  count: number;
  by_reason: Record<string, number>;
}

export interface SkipReport {
  count: number;
  by_reason: Record<string, number>;
  /** Folders (two levels deep) with the most skipped files, most first; the rest summed as `(other folders)`. */
  by_folder: FolderCount[];
  sample: SkippedEntry[];
}

export const SAMPLE_SIZE = 20;
export const FOLDER_ROWS = 20;

/** The folder a path is counted under: its parent, cut to two levels (`packages/cli/`). */
export function folderOf(path: string, depth = 2): string {
  const dirs = path.split('/').slice(0, -1).slice(0, depth);
  return dirs.length === 0 ? './' : `${dirs.join('/')}/`;
}

export function skipReport(skipped: readonly SkippedEntry[], sample = SAMPLE_SIZE, rows = FOLDER_ROWS): SkipReport {
  const byReason: Record<string, number> = {};
  const folders = new Map<string, FolderCount>();
  for (const s of skipped) {
    byReason[s.reason] = (byReason[s.reason] ?? 0) + 1;
    const key = folderOf(s.path);
    const f = folders.get(key) ?? { folder: key, count: 0, by_reason: {} };
    f.count += 1;
    f.by_reason[s.reason] = (f.by_reason[s.reason] ?? 0) + 1;
    folders.set(key, f);
  }
  const sorted = [...folders.values()].sort((a, b) => b.count - a.count || (a.folder < b.folder ? -1 : 1));
  const byFolder = sorted.slice(0, rows);
  const rest = sorted.slice(rows);
  if (rest.length > 0) {
    const other: FolderCount = { folder: '(other folders)', count: 0, by_reason: {} };
    for (const f of rest) {
      other.count += f.count;
      for (const [k, v] of Object.entries(f.by_reason)) other.by_reason[k] = (other.by_reason[k] ?? 0) + v;
    }
    byFolder.push(other);
  }
  return { count: skipped.length, by_reason: byReason, by_folder: byFolder, sample: skipped.slice(0, sample).map((s) => ({ path: s.path, reason: s.reason })) };
}

/** A typical folder of files skipped for the reason. */
function folderExample(reason: string): string {
  return reason === 'node_modules' ? 'node_modules/' : reason === 'vendored' ? 'vendor/' : 'dist/';
}

/** Readable lines: "skipped 14: generated 12, lockfile 2" and "  in dist/ 12 (generated), ./ 2 (lockfile)". */
export function skipLines(r: SkipReport, folders = 6): string[] {
  if (r.count === 0) return [];
  const counts = (m: Record<string, number>) => Object.entries(m).sort(([, a], [, b]) => b - a).map(([k, v]) => `${k} ${v}`).join(', ');
  const where = r.by_folder
    .slice(0, folders)
    .map((f) => `${f.folder} ${f.count} (${Object.keys(f.by_reason).join(', ')})`)
    .join(', ');
  const more = r.by_folder.length > folders ? ', …' : '';
  return [`skipped ${r.count}: ${counts(r.by_reason)}`, `  by folder: ${where}${more}`];
}

const PATHS_HOW = "in the source's `paths` (in topic.md's [[sources]], then `tkoma-ref refresh`; a source with `paths` fetches only those, so list the other folders too)";

/** How to bring a file skipped for `reason` into the topic; `path` (the skipped file) makes the example concrete. */
export function includeHint(reason: string, path?: string): string {
  switch (reason) {
    case 'lockfile':
      // A lock file is one file wherever it is: its folder would bring in the rest of the tree.
      return `name the file itself (its path in the repository, e.g. \`${path ? path.slice(path.lastIndexOf('/') + 1) : 'package-lock.json'}\`) ${PATHS_HOW}`;
    case 'generated':
    case 'vendored':
    case 'node_modules':
      return `name the file (or its folder, e.g. \`${folderExample(reason)}\`) ${PATHS_HOW}`;
    case 'too_large':
      return 'raise `max_file_bytes` in [limits] of tkoma-ref.toml, then refresh';
    case 'max_files':
      return 'raise `max_files` in [limits] of tkoma-ref.toml, or narrow the source with `paths`, then refresh';
    case 'max_topic_bytes':
      return 'raise `max_topic_bytes` in [limits] of tkoma-ref.toml, or narrow the source with `paths`, then refresh';
    case 'not_found':
      return 'the path named in `paths` does not exist upstream at that ref: fix the path';
    case 'duplicate_path':
    case 'reserved_name':
      return 'another file of the topic holds this name: put this source in its own topic';
    default:
      return `files skipped as ${reason} are never fetched (not reference text, or unsafe to write)`;
  }
}
