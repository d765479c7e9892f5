/**
 * `refresh`: re-fetch a topic's tracked sources at the same ref (a pinned commit stays pinned),
 * after a cheap `git ls-remote` check, apply added/changed/removed files, update fetched_at and
 * commits, commit once, and reindex (the index only re-chunks files whose hash changed).
 * A source that fails keeps its old files: a network error never deletes knowledge.
 *
 * Crash safety: fetching happens in staging without the lock. Under the write lock the refreshed
 * folder is built beside the live one (hard links for what is kept, so nothing is copied and the
 * live files are never written), then swapped in with two renames and committed. A reader sees the
 * old folder or the new one, never a mix; a crash before the commit puts the old one back.
 */
import { copyFileSync, linkSync, mkdirSync, readdirSync, readlinkSync, renameSync, symlinkSync } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { asTkomaError, TkomaError } from '../errors.js';
import type { CommitAuthor } from '../kgit.js';
import { crashPoint, runMutation, stagingPath } from '../mutation.js';
import type { Progress } from '../progress.js';
import { remoteCommit } from '../sources/git.js';
import { repoDisplayName } from '../sources/git-url.js';
import { staleness, type TopicSource, withFileWarnings } from '../store/model.js';
import { type FileRecord, listTopicIds, readManifest, readTopic, writeManifest, writeTopic } from '../store/topics.js';
import { countByReason, type Limits } from '../safety/limits.js';
import { assertNoLinks, removeInside } from '../safety/paths.js';
import { untrustedSummary, withUntrustedWarnings } from '../safety/warnings.js';
import { type FetchedSource, fetchOneSource, type FetchLimits, resolveLimits, type SkippedFile, sourcePrefixes } from './fetch.js';
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
  /** Files the re-fetched sources left out, by reason (content rules and the topic's caps). */
  skipped: { count: number; by_reason: Record<string, number>; sample: SkippedFile[] };
  limits: Limits;
  /** Files with possible prompt injection or hidden text after the refresh. */
  untrusted: { files: number; by_kind: Record<string, number> };
  /** Searchable now; how many chunks still wait for vectors (built in the background). */
  vector_search?: import('./indexing.js').VectorOutlook;
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

/** What phase A (no lock) learned about one source. */
type Fetched = { kind: 'up_to_date'; remote: string } | { kind: 'failed'; error: string } | { kind: 'fetched'; fetched: FetchedSource; dir: string };

/** Mirrors `src` into `dst` with hard links (symlinks recreated): the live folder is never written. */
export function linkTree(src: string, dst: string): void {
  mkdirSync(dst, { recursive: true });
  for (const e of readdirSync(src, { withFileTypes: true })) {
    const from = join(src, e.name);
    const to = join(dst, e.name);
    if (e.isDirectory()) linkTree(from, to);
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (e.isFile()) {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to); // a filesystem without hard links
      }
    }
  }
}

export async function refreshTopic(
  root: string,
  id: string,
  opts: { author: CommitAuthor; progress: Progress; embedderFlag?: string; limits?: FetchLimits },
): Promise<RefreshResult> {
  const { front: seen, dir: seenDir } = await readTopic(root, id);
  const prefixes = sourcePrefixes(seen.sources);
  // The caps hold for the whole topic: each source gets what the others (as they stand) leave.
  const { limits, fetch } = await resolveLimits(root, undefined, opts.limits);
  const seenManifest = await readManifest(seenDir);
  const holding = seen.sources.map((src, i) => seenManifest.filter((rec) => rec.source_url === src.url && (!prefixes[i] || rec.path.startsWith(`${prefixes[i]}/`))));
  const budgetExcept = (i: number) => {
    const others = holding.filter((_, j) => j !== i).flat();
    return { files: limits.max_files - others.length, bytes: limits.max_topic_bytes - others.reduce((n, rec) => n + rec.bytes, 0) };
  };
  const skipped: SkippedFile[] = [];
  const staging = stagingPath(root, `refresh-${id}`);
  const next = stagingPath(root, `next-${id}`);
  let result: RefreshResult;
  try {
    // Phase A, no lock: ask upstream and fetch into staging.
    const outcomes: Fetched[] = [];
    for (let i = 0; i < seen.sources.length; i++) {
      const src = seen.sources[i];
      const label = src.type === 'git' ? `Refresh ${repoDisplayName(src.url)}` : `Refresh ${src.url}`;
      outcomes.push(
        await opts.progress.task(label, async (update): Promise<Fetched> => {
          if (src.type === 'git') {
            update('checking upstream');
            const remote = await remoteCommit({ url: src.url, ref: src.ref }).catch(() => null);
            if (remote && remote === src.commit) return { kind: 'up_to_date', remote };
          }
          const dir = join(staging, String(i));
          const spec = { type: src.type, url: src.url, ...(src.ref ? { ref: src.ref } : {}), ...(src.paths ? { paths: src.paths } : {}) };
          const fetched = await fetchOneSource(spec, prefixes[i], dir, fetch, update, budgetExcept(i));
          skipped.push(...fetched.skipped);
          if (fetched.ok) holding[i] = fetched.files;
          return fetched.ok ? { kind: 'fetched', fetched, dir } : { kind: 'failed', error: fetched.error?.message ?? 'failed' };
        }),
      );
    }
    crashPoint('refresh:fetched');

    // Phase B, under the write lock, from the topic as it is now (an update may have run meanwhile).
    const done = await runMutation(root, { op: 'refresh', topicId: id, author: opts.author }, async (m) => {
      const { front, body, dir } = await readTopic(root, id);
      const manifest = await readManifest(dir);
      const r: RefreshResult = {
        topic_id: id,
        added: 0,
        changed: 0,
        removed: 0,
        unchanged: 0,
        sources: [],
        commit: null,
        chunk_count: 0,
        warnings: [],
        skipped: { count: skipped.length, by_reason: countByReason(skipped), sample: skipped.slice(0, 20) },
        limits,
        untrusted: { files: 0, by_kind: {} },
      };
      const newManifest: FileRecord[] = [];
      const toMove: { from: string; path: string }[] = [];
      const toRemove: FileRecord[] = [];
      const nowPrefixes = sourcePrefixes(front.sources);
      front.sources.forEach((src: TopicSource, i: number) => {
        const prefix = nowPrefixes[i];
        const owned = manifest.filter((rec) => rec.source_url === src.url && (!prefix || rec.path.startsWith(`${prefix}/`)));
        const report: SourceRefresh = { type: src.type, url: src.url, ...(src.ref ? { ref: src.ref } : {}), status: 'updated' };
        if (src.commit) report.old_commit = src.commit;
        const keep = (why: string) => {
          report.status = 'failed';
          report.error = why;
          r.warnings.push(`${src.url}: ${why} (kept the files fetched before)`);
          newManifest.push(...owned);
          r.unchanged += owned.length;
        };
        const o = seen.sources[i]?.url === src.url && prefixes[i] === prefix ? outcomes[i] : undefined;
        if (!o) keep('the topic\'s sources changed during the refresh');
        else if (o.kind === 'failed') keep(o.error);
        else if (o.kind === 'up_to_date' && o.remote === src.commit) {
          report.status = 'up_to_date';
          report.new_commit = o.remote;
          newManifest.push(...owned);
          r.unchanged += owned.length;
        } else if (o.kind === 'fetched') {
          const f = o.fetched;
          if (f.source.commit) {
            report.new_commit = f.source.commit;
            src.commit = f.source.commit;
          }
          if (f.source.final_url) src.final_url = f.source.final_url;
          const d = diffRecords(owned, f.files);
          r.added += d.added.length;
          r.changed += d.changed.length;
          r.removed += d.removed.length;
          r.unchanged += d.unchanged.length;
          for (const rec of [...d.added, ...d.changed]) toMove.push({ from: join(o.dir, rec.path), path: rec.path });
          toRemove.push(...d.removed);
          newManifest.push(...d.added, ...d.changed, ...d.unchanged);
          // Nothing changed: a web page with the same content, or a git source at the same commit.
          if (d.added.length + d.changed.length + d.removed.length === 0 && (src.type === 'web' || report.old_commit === report.new_commit)) {
            report.status = 'up_to_date';
          }
        } else keep('upstream moved during the refresh');
        r.sources.push(report);
      });
      if (r.sources.every((x) => x.status === 'failed')) {
        throw new TkomaError('SOURCE_UNREACHABLE', `every source of ${id} failed: ${r.warnings.join('; ')}`, { topic_id: id });
      }

      // Build the refreshed folder beside the live one.
      linkTree(dir, next);
      for (const c of toMove) {
        const dest = join(next, c.path);
        // The folder was mirrored from the live one, links included: never move a file through one.
        if (c.path.includes('/')) await assertNoLinks(next, dirname(c.path), { allowMissing: true, last: 'dir' });
        await mkdir(dirname(dest), { recursive: true });
        // rename replaces the directory entry only: the live folder's hard-linked file is untouched.
        await rename(c.from, dest).catch(async () => {
          await rm(dest, { force: true });
          await copyFile(c.from, dest);
        });
      }
      for (const rec of toRemove) await removeInside(next, rec.path);
      const byPath = new Map(newManifest.map((rec) => [rec.path, rec]));
      const records = [...byPath.values()];
      front.files = records.map((rec) => rec.path).sort();
      front.fetched_at = new Date().toISOString();
      // Status entries (and their body warnings) of files that are gone go with them.
      const kept = (front.file_status ?? []).filter((x) => byPath.has(x.path));
      front.file_status = kept.length ? kept : undefined;
      await writeManifest(next, records);
      r.untrusted = untrustedSummary(records);
      await writeTopic(next, front, withUntrustedWarnings(withFileWarnings(body, kept), records));
      crashPoint('refresh:built');

      // Swap: the old folder goes aside (journaled first), the new one takes its place. Two
      // synchronous renames back to back: a reader can meet the topic absent for microseconds,
      // never half old and half new.
      const aside = stagingPath(root, `old-${id}`);
      m.setAside(aside);
      renameSync(dir, aside);
      crashPoint('refresh:aside');
      renameSync(next, dir);
      const commits = r.sources
        .filter((x) => x.type === 'git')
        .map((x) => `${repoDisplayName(x.url)}@${x.old_commit && x.old_commit !== x.new_commit ? `${shortSha(x.old_commit)}→` : ''}${shortSha(x.new_commit)}`);
      const message = `refresh topic ${id}: +${r.added} ~${r.changed} -${r.removed} (${r.unchanged} unchanged)${commits.length ? ` from ${commits.join(', ')}` : ''}`;
      return { message, value: r };
    });
    result = done.value;
    result.commit = done.commit;
  } catch (err) {
    throw asTkomaError(err);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(next, { recursive: true, force: true });
  }
  const indexed = await indexTopics(root, [id], { embedderFlag: opts.embedderFlag, progress: opts.progress, author: opts.author });
  result.chunk_count = indexed.chunks[id] ?? 0;
  result.warnings.push(...indexed.warnings);
  result.vector_search = indexed.vector_search;
  return result;
}
