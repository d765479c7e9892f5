/**
 * Fetches a topic's sources into a folder, producing the tracked per-file records. Used by
 * create (into a staging folder) and refresh. One failing source is a warning; the caller decides
 * whether everything failing is an error.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { roleForPath } from '../chunking/index.js';
import { asTkomaError } from '../errors.js';
import type { Progress } from '../progress.js';
import { fetchGitSource } from '../sources/git.js';
import { repoDisplayName } from '../sources/git-url.js';
import { fetchWebPage } from '../sources/web.js';
import type { TopicSource } from '../store/model.js';
import { type FileRecord, RESERVED_NAMES } from '../store/topics.js';
import type { SourceRequest } from './request.js';

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface FetchedSource {
  source: TopicSource;
  ok: boolean;
  error?: { code: string; message: string };
  files: FileRecord[];
  skipped: SkippedFile[];
}

export interface FetchLimits {
  maxFileBytes?: number;
  maxFiles?: number;
  webTimeoutMs?: number;
  webMaxBytes?: number;
}

/**
 * Folder of each source inside the topic: a lone git source fills the topic folder (paths kept as
 * in the repository); several git sources each get a folder named after the repository so their
 * files cannot collide. Web pages always sit at the top as `<url-slug>.md`.
 */
export function sourcePrefixes(sources: Pick<SourceRequest, 'type' | 'url'>[]): string[] {
  const gitCount = sources.filter((s) => s.type === 'git').length;
  const used = new Set<string>();
  return sources.map((s) => {
    if (s.type !== 'git' || gitCount < 2) return '';
    const base = (repoDisplayName(s.url).split('/').pop() || 'repo').toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'repo';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    return name;
  });
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

async function recordFor(dir: string, rel: string, sourceUrl: string, fetchedAt: string, commit?: string): Promise<FileRecord> {
  const data = await readFile(join(dir, rel));
  return {
    path: rel,
    source_url: sourceUrl,
    role: roleForPath(rel),
    bytes: data.length,
    sha256: sha256(data),
    fetched_at: fetchedAt,
    ...(commit ? { commit } : {}),
  };
}

export async function fetchOneSource(src: SourceRequest, prefix: string, destDir: string, limits: FetchLimits, update: (m: string) => void): Promise<FetchedSource> {
  const fetchedAt = new Date().toISOString();
  const out: FetchedSource = { source: { ...src }, ok: false, files: [], skipped: [] };
  try {
    if (src.type === 'git') {
      const target = prefix ? join(destDir, prefix) : destDir;
      await mkdir(target, { recursive: true });
      update(`cloning ${repoDisplayName(src.url)}${src.ref ? `@${src.ref}` : ''}`);
      const res = await fetchGitSource(src, target, { maxFileBytes: limits.maxFileBytes, maxFiles: limits.maxFiles });
      out.source.commit = res.commit;
      if (!src.ref) out.source.ref = res.ref;
      out.skipped.push(...res.skipped.map((s) => ({ path: prefix ? `${prefix}/${s.path}` : s.path, reason: s.reason })));
      for (const f of res.files) {
        const rel = prefix ? `${prefix}/${f.path}` : f.path;
        if (RESERVED_NAMES.has(rel)) {
          await rm(join(destDir, rel), { force: true });
          out.skipped.push({ path: rel, reason: 'reserved_name' });
          continue;
        }
        out.files.push(await recordFor(destDir, rel, src.url, fetchedAt, res.commit));
      }
    } else {
      update(`fetching ${src.url}`);
      const page = await fetchWebPage(src.url, { timeoutMs: limits.webTimeoutMs, maxBytes: limits.webMaxBytes });
      let name = page.file_name;
      for (let n = 2; RESERVED_NAMES.has(name) || existsSync(join(destDir, name)); n++) name = page.file_name.replace(/\.md$/, `-${n}.md`);
      await mkdir(destDir, { recursive: true });
      await writeFile(join(destDir, name), page.markdown);
      if (page.final_url !== src.url) out.source.final_url = page.final_url;
      out.files.push({ ...(await recordFor(destDir, name, src.url, page.fetched_at)), role: 'docs' });
    }
    out.ok = true;
  } catch (err) {
    const e = asTkomaError(err);
    out.error = { code: e.code, message: e.message };
  }
  return out;
}

/** Fetches every source in order (git clones are CPU and disk heavy; two cores gain little). */
export async function fetchSources(sources: SourceRequest[], destDir: string, progress: Progress, limits: FetchLimits = {}): Promise<FetchedSource[]> {
  const prefixes = sourcePrefixes(sources);
  const results: FetchedSource[] = [];
  for (let i = 0; i < sources.length; i++) {
    const src = sources[i];
    const label = src.type === 'git' ? `Fetch ${repoDisplayName(src.url)}` : `Fetch ${src.url}`;
    const res = await progress.task(label, (update) => fetchOneSource(src, prefixes[i], destDir, limits, update));
    if (!res.ok) progress.warn(`${src.url}: ${res.error?.message}`);
    results.push(res);
  }
  return results;
}
