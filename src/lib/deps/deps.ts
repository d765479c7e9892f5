/**
 * `tkoma-ref deps [PATH]`: the project's direct dependencies (from its lockfiles) against the
 * topics of the knowledge root: which topic covers each, at which version, and create requests
 * pinned to the lockfile's versions for the missing and outdated ones. Reads local files only.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';

import { TkomaError } from '../errors.js';
import { repositoryUrl } from '../sources/npm/registry.js';
import { loadAllTopics } from '../store/topic-files.js';
import { type Dependency, parseCargoLock, parseGoMod, parsePackageLock, parsePnpmLock, parseYarnLock } from './lockfiles.js';
import { createRequestFor, depStatus, type DepStatus, findTopic } from './match.js';

export interface DepRow extends Dependency {
  status: DepStatus;
  topic_id: string | null;
  topic_version: string | null;
  matched_by: 'package' | 'repository' | 'name' | null;
}

export interface DepsReport {
  path: string;
  lockfiles: string[];
  dependencies: DepRow[];
  counts: Record<DepStatus, number>;
  /** With `requests`: one create request per dependency without a topic at its version. */
  requests?: Record<string, unknown>[];
  /** Dependencies that need a topic but have no source to name (e.g. a Go module on an unknown host). */
  no_request?: string[];
}

const JS_LOCKFILES: readonly string[] = ['npm-shrinkwrap.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock'];
const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'Cargo.lock', 'go.mod'] as const;

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Parses one lockfile (with its manifest beside it, where that adds what the lock lacks). */
function readLockfile(dir: string, name: string): Dependency[] {
  const text = readFileSync(join(dir, name), 'utf8');
  try {
    if (name === 'Cargo.lock') return parseCargoLock(text, readOrNull(join(dir, 'Cargo.toml')) ?? undefined, name);
    if (name === 'go.mod') return parseGoMod(text, name);
    const manifest = readOrNull(join(dir, 'package.json'));
    const deps =
      name === 'pnpm-lock.yaml'
        ? parsePnpmLock(text, name)
        : name === 'yarn.lock'
          ? manifest === null
            ? []
            : parseYarnLock(text, manifest, name)
          : parsePackageLock(text, manifest ?? undefined, name);
    // The installed package.json names the repository: a match by URL needs nothing from the network.
    for (const d of deps) {
      const installed = readOrNull(join(dir, ...(d.workspace ? [d.workspace] : []), 'node_modules', d.alias ?? d.name, 'package.json')) ?? readOrNull(join(dir, 'node_modules', d.alias ?? d.name, 'package.json'));
      if (!installed) continue;
      try {
        const repo = repositoryUrl((JSON.parse(installed) as { repository?: unknown }).repository);
        if (repo) d.repository = repo;
      } catch {
        // an unreadable installed package.json: no repository to match by
      }
    }
    return deps;
  } catch (err) {
    if (err instanceof TkomaError) throw err;
    throw new TkomaError('INVALID_INPUT', `${join(dir, name)} cannot be read as a lockfile: ${(err as Error).message}`, { file: join(dir, name) });
  }
}

export async function projectDeps(root: string, path: string, opts: { requests?: boolean; dev?: boolean } = {}): Promise<DepsReport> {
  const target = resolve(path);
  let dir = target;
  let names: string[];
  try {
    if (statSync(target).isDirectory()) names = LOCKFILES.filter((n) => readOrNull(join(target, n)) !== null);
    else {
      dir = resolve(target, '..');
      names = [basename(target)];
      if (!(LOCKFILES as readonly string[]).includes(names[0]!)) throw new TkomaError('INVALID_INPUT', `${path}: not a lockfile tkoma-ref reads (${LOCKFILES.join(', ')})`, { path });
    }
  } catch (err) {
    if (err instanceof TkomaError) throw err;
    throw new TkomaError('INVALID_PATH', `${path}: no such file or folder`, { path });
  }
  // One JavaScript lockfile: the first of npm's shrinkwrap, package-lock, pnpm's, yarn's (as npm would read the first two).
  const js = JS_LOCKFILES.find((n) => names.includes(n));
  names = names.filter((n) => !JS_LOCKFILES.includes(n) || n === js);
  if (names.length === 0) throw new TkomaError('FILE_NOT_FOUND', `${target} holds no lockfile tkoma-ref reads (${LOCKFILES.join(', ')})`, { path: target });
  const deps = names.flatMap((n) => readLockfile(dir, n)).filter((d) => opts.dev !== false || !d.dev);
  const { topics } = await loadAllTopics(root);
  const fronts = topics.map((t) => t.front);
  const rows: DepRow[] = deps.map((d) => {
    const m = findTopic(d, fronts);
    return { ...d, status: depStatus(d, m), topic_id: m?.topic_id ?? null, topic_version: m?.topic_version ?? null, matched_by: m?.matched_by ?? null };
  });
  rows.sort((a, b) => a.ecosystem.localeCompare(b.ecosystem) || a.name.localeCompare(b.name) || (a.workspace ?? '').localeCompare(b.workspace ?? ''));
  const counts: Record<DepStatus, number> = { same: 0, 'topic older': 0, 'topic newer': 0, 'no topic': 0, 'version unknown': 0 };
  for (const r of rows) counts[r.status] += 1;
  const report: DepsReport = { path: target, lockfiles: names.map((n) => relative(process.cwd(), join(dir, n)) || n), dependencies: rows, counts };
  if (opts.requests) {
    const requests: Record<string, unknown>[] = [];
    const none: string[] = [];
    const seen = new Set<string>();
    for (const r of rows.filter((x) => x.status === 'no topic' || x.status === 'topic older')) {
      const key = `${r.ecosystem} ${r.name}@${r.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const req = createRequestFor(r);
      if (req) requests.push(req);
      else none.push(key);
    }
    report.requests = requests;
    if (none.length > 0) report.no_request = none;
  }
  return report;
}
