/**
 * `refresh`: re-fetch a topic's tracked sources at the same ref (a pinned commit stays pinned),
 * after a cheap `git ls-remote` check, apply added/changed/removed files, update fetched_at and
 * commits, commit once, and reindex (the index only re-chunks files whose hash changed).
 * A source that fails keeps its old files: a network error never deletes knowledge.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

import { asTkomaError, TkomaError } from '../errors.js';
import { type CommitAuthor, commitAll, discardChanges } from '../kgit.js';
import type { Progress } from '../progress.js';
import { remoteCommit } from '../sources/git.js';
import { repoDisplayName } from '../sources/git-url.js';
import { staleness, withFileWarnings } from '../store/model.js';
import { stateDir } from '../store/root.js';
import { type FileRecord, listTopicIds, readManifest, readTopic, writeManifest, writeTopic } from '../store/topics.js';
import { fetchOneSource, type FetchLimits, sourcePrefixes } from './fetch.js';
import { indexTopics } from './indexing.js';
import { shortSha } from './summary.js';

export interface SourceRefresh {
  type: string;
  url: string;
  ref?: string;
  status: 'up_to_date' | 'updated' | 'failed';
  old_commit?: string;
  new_commit?: string;
  error?: string;
}

export interface RefreshResult {
  topic_id: string;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  sources: SourceRefresh[];
  commit: string | null;
  chunk_count: number;
  warnings: string[];
}

/** Pure: what changed between two sets of records of one source. */
export function diffRecords(oldRecs: FileRecord[], newRecs: FileRecord[]): { added: FileRecord[]; changed: FileRecord[]; removed: FileRecord[]; unchanged: FileRecord[] } {
  const before = new Map(oldRecs.map((r) => [r.path, r]));
  const after = new Map(newRecs.map((r) => [r.path, r]));
  const added: FileRecord[] = [];
  const changed: FileRecord[] = [];
  const unchanged: FileRecord[] = [];
  for (const r of newRecs) {
    const prev = before.get(r.path);
    if (!prev) added.push(r);
    else if (prev.sha256 !== r.sha256) changed.push(r);
    else unchanged.push({ ...r, fetched_at: prev.fetched_at });
  }
  const removed = oldRecs.filter((r) => !after.has(r.path));
  return { added, changed, removed, unchanged };
}

export async function selectTopicsToRefresh(root: string, sel: { ids?: string[]; stale?: boolean; all?: boolean }): Promise<string[]> {
  if (sel.ids && sel.ids.length > 0) return sel.ids;
  if (!sel.stale && !sel.all) throw new TkomaError('INVALID_INPUT', 'name topics to refresh, or pass --stale or --all');
  const out: string[] = [];
  for (const id of await listTopicIds(root)) {
    try {
      const { front } = await readTopic(root, id);
      if (front.status === 'obsolete') continue;
      if (sel.all || staleness(front).is_stale) out.push(id);
    } catch {
      // A broken topic.md cannot be refreshed; `topic list` reports it.
    }
  }
  return out;
}

export async function refreshTopic(
  root: string,
  id: string,
  opts: { author: CommitAuthor; progress: Progress; embedderFlag?: string; limits?: FetchLimits },
): Promise<RefreshResult> {
  const { front, body, dir } = await readTopic(root, id);
  const manifest = await readManifest(dir);
  const prefixes = sourcePrefixes(front.sources);
  const staging = join(stateDir(root), 'staging', `refresh-${id}.${randomBytes(4).toString('hex')}`);
  const result: RefreshResult = { topic_id: id, added: 0, changed: 0, removed: 0, unchanged: 0, sources: [], commit: null, chunk_count: 0, warnings: [] };
  const newManifest: FileRecord[] = [];
  const toCopy: { from: string; path: string }[] = [];
  const toRemove: FileRecord[] = [];
  const rel = relative(root, dir);
  try {
    for (let i = 0; i < front.sources.length; i++) {
      const src = front.sources[i];
      const prefix = prefixes[i];
      const owned = manifest.filter((r) => r.source_url === src.url && (!prefix || r.path.startsWith(`${prefix}/`)));
      const report: SourceRefresh = { type: src.type, url: src.url, ...(src.ref ? { ref: src.ref } : {}), status: 'updated' };
      if (src.commit) report.old_commit = src.commit;
      const label = src.type === 'git' ? `Refresh ${repoDisplayName(src.url)}` : `Refresh ${src.url}`;
      await opts.progress.task(label, async (update) => {
        if (src.type === 'git') {
          update('checking upstream');
          const remote = await remoteCommit({ url: src.url, ref: src.ref }).catch(() => null);
          if (remote && remote === src.commit) {
            report.status = 'up_to_date';
            report.new_commit = remote;
            newManifest.push(...owned);
            result.unchanged += owned.length;
            return;
          }
        }
        const srcDir = join(staging, String(i));
        const fetched = await fetchOneSource({ type: src.type, url: src.url, ...(src.ref ? { ref: src.ref } : {}), ...(src.paths ? { paths: src.paths } : {}) }, prefix, srcDir, opts.limits ?? {}, update);
        if (!fetched.ok) {
          report.status = 'failed';
          report.error = fetched.error?.message;
          result.warnings.push(`${src.url}: ${fetched.error?.message} (kept the files fetched before)`);
          newManifest.push(...owned);
          result.unchanged += owned.length;
          return;
        }
        if (fetched.source.commit) {
          report.new_commit = fetched.source.commit;
          src.commit = fetched.source.commit;
        }
        if (fetched.source.final_url) src.final_url = fetched.source.final_url;
        const d = diffRecords(owned, fetched.files);
        result.added += d.added.length;
        result.changed += d.changed.length;
        result.removed += d.removed.length;
        result.unchanged += d.unchanged.length;
        for (const r of [...d.added, ...d.changed]) toCopy.push({ from: join(srcDir, r.path), path: r.path });
        toRemove.push(...d.removed);
        newManifest.push(...d.added, ...d.changed, ...d.unchanged);
        if (src.type === 'git' && d.added.length + d.changed.length + d.removed.length === 0 && report.old_commit === report.new_commit) {
          report.status = 'up_to_date';
        }
      });
      result.sources.push(report);
    }
    if (result.sources.every((s) => s.status === 'failed')) {
      throw new TkomaError('SOURCE_UNREACHABLE', `every source of ${id} failed: ${result.warnings.join('; ')}`, { topic_id: id });
    }

    for (const c of toCopy) {
      await mkdir(dirname(join(dir, c.path)), { recursive: true });
      await copyFile(c.from, join(dir, c.path));
    }
    for (const r of toRemove) await rm(join(dir, r.path), { force: true });
    const byPath = new Map(newManifest.map((r) => [r.path, r]));
    const records = [...byPath.values()];
    front.files = records.map((r) => r.path).sort();
    front.fetched_at = new Date().toISOString();
    // Status entries (and their body warnings) of files that are gone go with them.
    const kept = (front.file_status ?? []).filter((s) => byPath.has(s.path));
    front.file_status = kept.length ? kept : undefined;
    await writeManifest(dir, records);
    await writeTopic(dir, front, withFileWarnings(body, kept));
    const commits = result.sources
      .filter((s) => s.type === 'git')
      .map((s) => `${repoDisplayName(s.url)}@${s.old_commit && s.old_commit !== s.new_commit ? `${shortSha(s.old_commit)}→` : ''}${shortSha(s.new_commit)}`);
    const message = `refresh topic ${id}: +${result.added} ~${result.changed} -${result.removed} (${result.unchanged} unchanged)${commits.length ? ` from ${commits.join(', ')}` : ''}`;
    result.commit = await commitAll(root, message, opts.author, [rel]);
  } catch (err) {
    await discardChanges(root, [rel]);
    throw asTkomaError(err);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const indexed = await indexTopics(root, [id], { embedderFlag: opts.embedderFlag, progress: opts.progress, author: opts.author });
  result.chunk_count = indexed.chunks[id] ?? 0;
  result.warnings.push(...indexed.warnings);
  return result;
}
