/**
 * `refresh`: re-fetch a topic's tracked sources at the same ref (a pinned commit stays pinned),
 * after a cheap `git ls-remote` check, apply added/changed/removed files, update fetched_at and
 * commits, commit once, and reindex (the index only re-chunks files whose hash changed).
 * A source that fails keeps its old files: a network error never deletes knowledge. Phase A
 * (ask upstream, fetch into staging) is refresh-fetch.ts; what phase B will change, source by
 * source, is decided in refresh-plan.ts; this module builds, swaps and commits.
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

import { asTkomaError, TkomaError } from '../errors.js';
import { holdPoint } from '../hold.js';
import type { CommitAuthor } from '../root-git.js';
import { crashPoint, runMutation, stagingPath } from '../mutation.js';
import { assertRootIdle } from '../root-state.js';
import type { Progress } from '../progress.js';
import { repoDisplayName } from '../sources/git-url.js';
import { parseTopicMd } from '../store/frontmatter.js';
import { staleness, type TopicFront, withFileWarnings } from '../store/model.js';
import { readSkipped, SKIPPED_FILE, writeSkipped } from '../store/skipped.js';
import { listTopicIds, MANIFEST_FILE, readManifest, readTopic, TOPIC_FILE, writeManifest, writeTopic } from '../store/topic-files.js';
import type { Limits } from '../safety/limits.js';
import { assertNoLinks, removeInside } from '../safety/paths.js';
import { untrustedSummary, withUntrustedWarnings } from '../safety/warnings.js';
import { changedEntries, inodeAt, placeEntry, scanTree, type TreeScan } from './carry.js';
import type { FetchLimits } from './fetch-limits.js';
import { sha256 } from './file-records.js';
import { type SkipReport, skipReport } from './skip-report.js';
import { fetchUpstream } from './refresh-fetch.js';
import { planRefresh, type SourceRefresh } from './refresh-plan.js';
import { indexTopics } from './indexing.js';
import { shortSha } from './summary.js';
import { withYoungGenerationHeld } from '../young-generation.js';

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
      const { records, touched, sourceUpdates, skippedNow } = planRefresh(id, { front, manifest, skippedBefore, before }, { seen, prefixes, outcomes }, r);

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
