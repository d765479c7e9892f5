/**
 * `refresh`: re-fetch a topic's tracked sources at the same ref (a pinned commit stays pinned),
 * after a cheap `git ls-remote` check, apply added/changed/removed files, update fetched_at and
 * commits, commit once, and reindex (the index only re-chunks files whose hash changed).
 * A source that fails keeps its old files: a network error never deletes knowledge.
 *
 * Names: every file keeps the name recorded in the manifest. A web page is written back to the
 * name it got when first fetched (its record's `path`); a page fetched for the first time takes
 * the first `<slug>.md`, `<slug>-2.md`, … that no other source, and no file in the folder, holds
 * (compared case-insensitively); a git file whose path another source (or a file nobody fetched)
 * already holds is skipped as `duplicate_path`. Two sources never share a file.
 *
 * Crash safety: fetching happens in staging without the lock. Under the write lock the refreshed
 * folder is built beside the live one (hard links for what is kept, so nothing is copied and the
 * live files are never written), then swapped in with two renames and committed. A reader sees the
 * old folder or the new one, never a mix; a crash before the commit puts the old one back.
 *
 * The operator's work is never dropped. Operators edit the topic folder without our lock, so:
 * - the live folder is scanned (path → size, mtime, inode) when the build starts, again right
 *   before the swap and again right after the old folder is moved aside; whatever changed in
 *   between (new files, edits, deletions, topic.md) is carried into the new folder;
 * - a file refresh would replace or remove whose live bytes are not what the tool last fetched
 *   (edited by hand, before or during the refresh) is a conflict: the operator's version stays
 *   the live file, the manifest keeps the old record (so the next refresh offers the upstream
 *   version again), and the result lists it in `conflicts` and `warnings`;
 * - a topic.md edited during the refresh is kept, with refresh's own fields (files, fetched_at,
 *   source commits, warning lines) applied on top of it;
 * - files nobody fetched (not in the manifest) are never removed or overwritten: an upstream file
 *   of the same name is skipped as `duplicate_path`.
 */
import { copyFileSync, linkSync, mkdirSync, readdirSync, readlinkSync, renameSync, symlinkSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { appendAll } from '../append.js';
import { asTkomaError, TkomaError } from '../errors.js';
import { holdPoint } from '../hold.js';
import type { CommitAuthor } from '../root-git.js';
import { crashPoint, runMutation, stagingPath } from '../mutation.js';
import { assertRootIdle } from '../root-state.js';
import type { Progress } from '../progress.js';
import { repoDisplayName } from '../sources/git-url.js';
import { parseTopicMd } from '../store/frontmatter.js';
import { sourceVersion, staleness, type TopicFront, type TopicSource, withFileWarnings } from '../store/model.js';
import { readSkipped, SKIPPED_FILE, type SkippedRecord, writeSkipped } from '../store/skipped.js';
import { type FileRecord, listTopicIds, MANIFEST_FILE, readManifest, readTopic, TOPIC_FILE, writeManifest, writeTopic } from '../store/topic-files.js';
import type { Limits } from '../safety/limits.js';
import { assertNoLinks, removeInside } from '../safety/paths.js';
import { untrustedSummary, withUntrustedWarnings } from '../safety/warnings.js';
import { changedEntries, inodeAt, placeEntry, scanTree, type TreeScan } from './carry.js';
import { type CrawlSummary, skippedRecords } from './fetch.js';
import type { FetchLimits } from './fetch-limits.js';
import { sha256 } from './file-records.js';
import { NameBook, sourcePrefixes } from './naming.js';
import { type SkipReport, skipReport } from './skip-report.js';
import { fetchUpstream } from './refresh-fetch.js';
import { indexTopics } from './indexing.js';
import { shortSha } from './summary.js';
import { withYoungGenerationHeld } from '../young-generation.js';

export interface SourceRefresh {
  type: string;
  url: string;
  ref?: string;
  /** `ref_gone`: the branch (or tag) the source follows no longer exists upstream; its files are kept. */
  status: 'up_to_date' | 'updated' | 'failed' | 'ref_gone';
  old_commit?: string;
  new_commit?: string;
  /** npm and git tags: the version the files are at, `3.23.8 → 3.24.1` when the refresh moved it. */
  version?: string;
  error?: string;
  /** A crawl: what it found and did, and the pages it added, changed and removed (gone upstream: 404/410, or no longer linked). */
  crawl?: CrawlSummary & { added: string[]; changed: string[]; removed: string[]; unchanged: number };
}

export interface RefreshResult {
  topic_id: string;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  /**
   * Files edited here that refresh would have replaced (`changed`/`added` upstream) or removed:
   * the edited version stays (see the module header), also listed in `warnings`.
   */
  conflicts: { path: string; upstream: 'added' | 'changed' | 'removed' }[];
  sources: SourceRefresh[];
  commit: string | null;
  chunk_count: number;
  warnings: string[];
  /**
   * What the topic's sources leave out after the refresh (sources not re-fetched keep their
   * earlier records), by reason and folder; every path is in `.tkoma-skipped.jsonl`.
   */
  skipped: SkipReport & { file?: string };
  limits: Limits;
  /** Files with possible prompt injection or hidden text after the refresh. */
  untrusted: { files: number; by_kind: Record<string, number> };
  /** Searchable now; how many chunks still wait for vectors (built in the background). */
  vector_search?: import('../vectors/status.js').VectorOutlook;
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

/** What a refresh changes in a `[[sources]]` entry. */
type SourceUpdate = Partial<Pick<TopicSource, 'commit' | 'final_url' | 'ref_kind' | 'ref' | 'resolved_version' | 'integrity' | 'tarball' | 'repository' | 'git_head' | 'upstream_version'>>;

/** `1.1.0 → 1.2.0`, or the one version when it did not move. */
function versionMove(before: string | undefined, after: string | undefined): string | undefined {
  if (!after) return before;
  return before && before !== after ? `${before} → ${after}` : after;
}

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

type RefreshOptions = { author: CommitAuthor; progress: Progress; embedderFlag?: string; limits?: FetchLimits };

/** Refreshes one topic, its young generation held as create's is (young-generation.ts). */
export const refreshTopic = (root: string, id: string, opts: RefreshOptions): Promise<RefreshResult> => withYoungGenerationHeld(() => refreshHeld(root, id, opts));

async function refreshHeld(root: string, id: string, opts: RefreshOptions): Promise<RefreshResult> {
  // A root mid-merge or on a detached HEAD is refused before asking upstream, not after.
  assertRootIdle(root, [`references/${id}`]);
  const staging = stagingPath(root, `refresh-${id}`);
  const next = stagingPath(root, `next-${id}`);
  let stray: string | null = null;
  let result: RefreshResult;
  try {
    // Phase A, no lock: ask upstream and fetch into staging.
    const { seen, prefixes, outcomes, limits } = await fetchUpstream(root, id, staging, opts);
    crashPoint('refresh:fetched');

    // Phase B, under the write lock, from the topic as it is now (an update may have run meanwhile).
    const done = await runMutation(root, { op: 'refresh', topicId: id, author: opts.author }, async (m) => {
      const { front, body, dir } = await readTopic(root, id);
      const manifest = await readManifest(dir);
      const skippedBefore = await readSkipped(dir);
      /** What the topic's sources leave out after this refresh: `.tkoma-skipped.jsonl`. */
      const skippedNow: SkippedRecord[] = [];
      // What the folder holds as the build starts: operators write to it without our lock.
      const before = scanTree(dir);
      const r: RefreshResult = {
        topic_id: id,
        added: 0,
        changed: 0,
        removed: 0,
        unchanged: 0,
        conflicts: [],
        sources: [],
        commit: null,
        chunk_count: 0,
        warnings: [],
        skipped: skipReport([]),
        limits,
        untrusted: { files: 0, by_kind: {} },
      };
      const oldByPath = new Map(manifest.map((rec) => [rec.path, rec]));
      const records = new Map<string, FileRecord>();
      /** What the build does to each path it writes or removes: a hand edit there is a conflict. */
      const touched = new Map<string, { how: 'added' | 'changed' | 'removed'; from?: string }>();
      const sourceUpdates = new Map<number, SourceUpdate>();
      const addedNow: string[] = [];
      const nowPrefixes = sourcePrefixes(front.sources);
      /** Sources the root's settings refused (no request sent): all of them is NOT_ALLOWED, not unreachable. */
      let refusedByPolicy = 0;
      for (const [i, src] of front.sources.entries()) {
        const prefix = nowPrefixes[i];
        const owned = manifest.filter((rec) => rec.source_url === src.url && (!prefix || rec.path.startsWith(`${prefix}/`)));
        const report: SourceRefresh = { type: src.type, url: src.url, ...(src.ref ? { ref: src.ref } : {}), status: 'updated' };
        if (src.commit) report.old_commit = src.commit;
        if (sourceVersion(src)) report.version = sourceVersion(src);
        const keepOwned = () => {
          for (const rec of owned) records.set(rec.path, rec);
          r.unchanged += owned.length;
          appendAll(skippedNow, skippedBefore.filter((s) => s.source === src.url && (!prefix || s.path.startsWith(`${prefix}/`))));
        };
        const keep = (why: string, status: 'failed' | 'ref_gone' = 'failed') => {
          report.status = status;
          report.error = why;
          r.warnings.push(`${src.url}: ${why} (kept the files fetched before)`);
          keepOwned();
        };
        const o = seen.sources[i]?.url === src.url && prefixes[i] === prefix ? outcomes[i] : undefined;
        if (!o) keep('the topic\'s sources changed during the refresh');
        else if (o.kind === 'failed' || o.kind === 'ref_gone') {
          keep(o.error, o.kind);
          if (o.kind === 'failed' && o.code) refusedByPolicy++;
        }
        else if (o.kind === 'up_to_date' && o.remote === (src.type === 'npm' ? src.resolved_version : src.commit)) {
          report.status = 'up_to_date';
          if (src.type !== 'npm') report.new_commit = o.remote;
          if (o.upstream !== src.upstream_version) sourceUpdates.set(i, { upstream_version: o.upstream });
          keepOwned();
        } else if (o.kind === 'fetched') {
          const f = o.fetched;
          const upd: SourceUpdate = {};
          if (f.source.commit) report.new_commit = upd.commit = f.source.commit;
          if (f.source.ref_kind && !src.ref_kind) upd.ref_kind = f.source.ref_kind; // recorded from now on
          if (f.source.final_url) upd.final_url = f.source.final_url;
          if (src.version && f.source.ref) upd.ref = f.source.ref; // a version range moved to this tag
          if (src.type === 'npm') {
            for (const key of ['resolved_version', 'integrity', 'tarball', 'repository', 'git_head', 'upstream_version'] as const) upd[key] = f.source[key];
          }
          report.version = versionMove(sourceVersion(src), sourceVersion(f.source));
          sourceUpdates.set(i, upd);
          appendAll(skippedNow, skippedRecords(f.skipped));
          const d = diffRecords(owned, f.files);
          if (f.crawl) report.crawl = { ...f.crawl, added: d.added.map((x) => x.path), changed: d.changed.map((x) => x.path), removed: d.removed.map((x) => x.path), unchanged: d.unchanged.length };
          // A new file never takes a name another source, or a file nobody fetched, holds now.
          const own = new Set(owned.map((rec) => rec.path));
          const book = new NameBook([...[...before.keys(), ...manifest.map((rec) => rec.path)].filter((p) => !own.has(p)), ...addedNow]);
          const added = d.added.filter((rec) => {
            if (book.free(rec.path)) return true;
            skippedNow.push({ path: rec.path, reason: 'duplicate_path', source: src.url, bytes: rec.bytes });
            r.warnings.push(`${rec.path}: another file of the topic holds this name; the new upstream file was not written`);
            return false;
          });
          appendAll(addedNow, added.map((rec) => rec.path));
          r.added += added.length;
          r.changed += d.changed.length;
          r.removed += d.removed.length;
          r.unchanged += d.unchanged.length;
          for (const rec of added) touched.set(rec.path, { how: 'added', from: join(o.dir, rec.path) });
          for (const rec of d.changed) touched.set(rec.path, { how: 'changed', from: join(o.dir, rec.path) });
          for (const rec of d.removed) touched.set(rec.path, { how: 'removed' });
          for (const rec of [...added, ...d.changed, ...d.unchanged]) records.set(rec.path, rec);
          // Nothing changed: a web page with the same content, or a git source at the same commit.
          if (added.length + d.changed.length + d.removed.length === 0 && (src.type === 'web' || report.old_commit === report.new_commit)) {
            report.status = 'up_to_date';
          }
        } else keep('upstream moved during the refresh');
        r.sources.push(report);
      }
      if (r.sources.every((x) => x.status === 'failed' || x.status === 'ref_gone')) {
        // Every source refused by the root's own settings: nothing was unreachable, the operator's policy says no.
        if (refusedByPolicy === r.sources.length) throw new TkomaError('NOT_ALLOWED', `every source of ${id} is refused by this root's settings: ${r.warnings.join('; ')}`, { topic_id: id });
        throw new TkomaError('SOURCE_UNREACHABLE', `every source of ${id} failed: ${r.warnings.join('; ')}`, { topic_id: id });
      }

      /** The operator's version of `path` stays; the upstream change to it is not applied. */
      const conflict = (path: string): void => {
        const t = touched.get(path)!;
        touched.delete(path);
        const old = oldByPath.get(path);
        if (t.how === 'changed' && old) records.set(path, old);
        else records.delete(path);
        r[t.how] -= 1;
        r.conflicts.push({ path, upstream: t.how });
        r.warnings.push(
          t.how === 'removed'
            ? `${path}: removed upstream but edited here; kept your file (no longer tracked)`
            : `${path}: ${t.how} upstream and edited here; kept your version (move it aside and refresh again to take upstream's)`,
        );
      };
      // A file refresh would replace or remove that is not what the tool last fetched was edited by hand.
      for (const [path, t] of [...touched]) {
        const old = oldByPath.get(path);
        if (t.how === 'added' || !old || !before.has(path)) continue;
        const live = await readFile(join(dir, path)).catch(() => null);
        if (live && sha256(live) !== old.sha256) conflict(path);
      }

      // Build the refreshed folder beside the live one.
      linkTree(dir, next);
      for (const [path, t] of touched) {
        if (t.how === 'removed') {
          await removeInside(next, path);
          continue;
        }
        const dest = join(next, path);
        // The folder was mirrored from the live one, links included: never move a file through one.
        if (path.includes('/')) await assertNoLinks(next, dirname(path), { allowMissing: true, last: 'dir' });
        await mkdir(dirname(dest), { recursive: true });
        // rename replaces the directory entry only: the live folder's hard-linked file is untouched.
        await rename(t.from!, dest).catch(async () => {
          await rm(dest, { force: true });
          await copyFile(t.from!, dest);
        });
      }
      /** Writes topic.md (refresh's fields applied to `topic`) and the manifest into `next`. */
      const writeMeta = async (topic: { front: TopicFront; body: string }, into = next): Promise<void> => {
        const recs = [...records.values()];
        const t = topic.front;
        for (const [i, upd] of sourceUpdates) {
          const s = t.sources[i];
          if (s && s.type === front.sources[i].type && s.url === front.sources[i].url) Object.assign(s, upd);
        }
        t.files = recs.map((rec) => rec.path).sort();
        t.fetched_at = fetchedAt;
        // Status entries (and their body warnings) of files that are gone go with them.
        const kept = (t.file_status ?? []).filter((x) => records.has(x.path));
        t.file_status = kept.length ? kept : undefined;
        await writeManifest(into, recs);
        await writeSkipped(into, skippedNow);
        r.untrusted = untrustedSummary(recs);
        await writeTopic(into, t, withUntrustedWarnings(withFileWarnings(topic.body, kept), recs));
      };
      const fetchedAt = new Date().toISOString();
      await writeMeta({ front, body });
      crashPoint('refresh:built');
      await holdPoint('refresh:built');

      // Carry what the operator changed in the live folder since `before` into the new one.
      let topicEdited = false;
      const carry = async (from: string, prev: TreeScan, now: TreeScan, into = next): Promise<void> => {
        for (const { path, gone } of changedEntries(prev, now)) {
          if (path === MANIFEST_FILE || path === SKIPPED_FILE) continue; // ours: rewritten below from the records
          if (path === TOPIC_FILE) {
            topicEdited = true;
            continue;
          }
          if (gone) {
            // Deleted by hand: gone from the new folder too, unless refresh put a new file there.
            if (prev.get(path)!.ino === inodeAt(into, path)) await removeInside(into, path);
            continue;
          }
          if (touched.has(path)) conflict(path);
          if (now.get(path)!.ino !== inodeAt(into, path)) await placeEntry(from, into, path);
        }
      };
      const mid = scanTree(dir);
      await carry(dir, before, mid);

      // Swap: the old folder goes aside (journaled first), the new one takes its place. Two
      // synchronous renames back to back: a reader can meet the topic absent for microseconds,
      // never half old and half new.
      const aside = stagingPath(root, `old-${id}`);
      m.setAside(aside);
      renameSync(dir, aside);
      crashPoint('refresh:aside');
      await holdPoint('refresh:aside');
      try {
        renameSync(next, dir);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
        // Someone created the folder anew in the instant it was absent: theirs goes on top of ours.
        stray = stagingPath(root, `stray-${id}`);
        renameSync(dir, stray);
        renameSync(next, dir);
        for (const path of scanTree(stray).keys()) await placeEntry(stray, dir, path);
      }
      // Anything written between the last scan and the move is in the old folder: carry it too
      // (into the live folder now; the commit below takes it).
      await carry(aside, mid, scanTree(aside), dir);
      if (topicEdited || r.conflicts.length > 0) {
        let edited: { front: TopicFront; body: string } | null = null;
        try {
          edited = parseTopicMd(await readFile(join(aside, TOPIC_FILE), 'utf8'), `references/${id}/${TOPIC_FILE}`);
        } catch {
          r.warnings.push(`${TOPIC_FILE} was edited during the refresh and does not parse: kept as written, without refresh's changes (files, fetched_at, commits)`);
        }
        if (edited) await writeMeta(edited, dir);
        else {
          await writeManifest(dir, [...records.values()]);
          await writeSkipped(dir, skippedNow);
          await placeEntry(aside, dir, TOPIC_FILE);
        }
      }
      r.skipped = { ...skipReport(skippedNow), ...(skippedNow.length > 0 ? { file: SKIPPED_FILE } : {}) };
      const commits = r.sources
        .filter((x) => x.type === 'git')
        .map((x) => `${repoDisplayName(x.url)}@${x.old_commit && x.old_commit !== x.new_commit ? `${shortSha(x.old_commit)}→` : ''}${shortSha(x.new_commit)}`);
      commits.push(...r.sources.filter((x) => x.type === 'npm' && x.version).map((x) => `${x.url.replace(/^npm:/, 'npm ')}@${x.version!.replace(' → ', '→')}`));
      const kept = r.conflicts.length ? `, ${r.conflicts.length} kept as edited here` : '';
      const message = `refresh topic ${id}: +${r.added} ~${r.changed} -${r.removed} (${r.unchanged} unchanged${kept})${commits.length ? ` from ${commits.join(', ')}` : ''}`;
      return { message, value: r };
    });
    result = done.value;
    result.commit = done.commit;
  } catch (err) {
    throw asTkomaError(err);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(next, { recursive: true, force: true });
    if (stray) await rm(stray, { recursive: true, force: true });
  }
  const indexed = await indexTopics(root, [id], { embedderFlag: opts.embedderFlag, progress: opts.progress, author: opts.author });
  result.chunk_count = indexed.chunks[id] ?? 0;
  result.warnings.push(...indexed.warnings);
  result.vector_search = indexed.vector_search;
  return result;
}
