/**
 * Corpora the benchmarks index, built as a user's sources would be: real files committed into a
 * local git repository under .bench-work/. One corpus is assembled from the source files of
 * installed packages (node_modules); the retrieval data sets become one file per document.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

import { skipReason } from '../../src/lib/sources/git-filter.js';
import { PROJECT } from './store.js';

export interface Repo {
  dir: string;
  url: string;
  files: number;
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'tkoma-bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'tkoma-bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();
}

const MARKER = '.bench-corpus';

/**
 * A git repository holding exactly `files`, rebuilt only when `key` (what the caller built it
 * from) changed, so reruns reuse it. Returns its file:// URL for `topic create`.
 */
export async function repoFromFiles(
  dir: string,
  key: string,
  files: () => Iterable<[string, string | Uint8Array]> | AsyncIterable<[string, string | Uint8Array]>,
): Promise<Repo> {
  const marker = `${dir}${MARKER}`;
  if (existsSync(join(dir, '.git')) && existsSync(marker)) {
    const saved = JSON.parse(readFileSync(marker, 'utf8')) as { key: string; files: number };
    if (saved.key === key) return { dir, url: pathToFileURL(dir).href, files: saved.files };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let count = 0;
  for await (const [rel, content] of files()) {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    count++;
  }
  git(dir, 'init', '-q', '-b', 'main');
  // Lets the partial (blob-less) clone work over file://, as it does against real hosts.
  git(dir, 'config', 'uploadpack.allowFilter', 'true');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--no-verify', '-m', `benchmark corpus: ${count} files`);
  writeFileSync(marker, JSON.stringify({ key, files: count }));
  return { dir, url: pathToFileURL(dir).href, files: count };
}

const SOURCE_EXT = /\.(ts|mts|cts|js|mjs|cjs|jsx|tsx|md|markdown|json|py|c|h|cc|cpp|rs|go|java|rb|sh|css|html|yml|yaml|toml|txt)$/i;
const MAX_FILE_BYTES = 256 * 1024;
/** Folder names the fetch filter drops (dist/, node_modules/…): renamed so real code stays in. */
const RENAME_DIRS = new Set(['node_modules', 'dist', 'build', 'out', 'target', 'coverage', 'vendor', 'third_party', 'third-party', 'bower_components', '.yarn', '.git']);

function mapPath(rel: string): string {
  return rel
    .split(sep)
    .map((part, i, all) => (i < all.length - 1 && RENAME_DIRS.has(part) ? `${part.replace(/^\./, '')}_` : part))
    .join('/');
}

/**
 * Source and documentation files of the installed packages (sorted walk, so the same install
 * gives the same corpus), under `packages/…`, that the fetch filter keeps.
 */
export function* nodeModulesFiles(maxFiles: number, modules = join(PROJECT, 'node_modules')): Generator<[string, string]> {
  let n = 0;
  const walk = function* (dir: string): Generator<[string, string]> {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (n >= maxFiles) return;
      const abs = join(dir, name);
      let st;
      try {
        st = statSync(abs);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (name !== '.bin' && name !== '.cache') yield* walk(abs);
        continue;
      }
      if (!st.isFile() || st.size === 0 || st.size > MAX_FILE_BYTES || !SOURCE_EXT.test(name)) continue;
      const rel = `packages/${mapPath(relative(modules, abs))}`;
      const data = readFileSync(abs);
      if (skipReason(rel, data.length, data.subarray(0, 8192)) !== null) continue;
      n++;
      yield [rel, data.toString('utf8')];
    }
  };
  yield* walk(modules);
}

/** The node_modules corpus as a git repository (≥ 10,000 files on this install unless capped). */
export function nodeModulesRepo(workDir: string, maxFiles: number): Promise<Repo> {
  const dir = join(workDir, `corpus-node-modules-${maxFiles}`);
  return repoFromFiles(dir, `node_modules:${maxFiles}`, () => nodeModulesFiles(maxFiles));
}
