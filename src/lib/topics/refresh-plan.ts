/**
 * What a refresh will do, decided before anything is written: per source, whether its files are
 * kept (failed, gone, up to date) or replaced by what phase A fetched, which paths the build adds,
 * changes and removes, and what changes in the topic's `[[sources]]` entries.
 */
import { join } from 'node:path';

import { appendAll } from '../append.js';
import { TkomaError } from '../errors.js';
import { sourceVersion, type TopicFront, type TopicSource } from '../store/model.js';
import type { SkippedRecord } from '../store/skipped.js';
import type { FileRecord } from '../store/topic-files.js';
import type { TreeScan } from './carry.js';
import { type CrawlSummary, skippedRecords } from './fetch.js';
import { NameBook, sourcePrefixes } from './naming.js';
import type { RefreshResult } from './refresh.js';
import type { Upstream } from './refresh-fetch.js';

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

/** What a refresh changes in a `[[sources]]` entry. */
type SourceUpdate = Partial<Pick<TopicSource, 'commit' | 'final_url' | 'ref_kind' | 'ref' | 'resolved_version' | 'integrity' | 'tarball' | 'repository' | 'git_head' | 'upstream_version'>>;

/** `1.1.0 → 1.2.0`, or the one version when it did not move. */
function versionMove(before: string | undefined, after: string | undefined): string | undefined {
  if (!after) return before;
  return before && before !== after ? `${before} → ${after}` : after;
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

/** What the build does to each path it writes or removes: a hand edit there is a conflict. */
export type Touched = Map<string, { how: 'added' | 'changed' | 'removed'; from?: string }>;

export interface RefreshPlan {
  /** The topic's manifest after the refresh, by path. */
  records: Map<string, FileRecord>;
  touched: Touched;
  /** By index into the topic's sources. */
  sourceUpdates: Map<number, SourceUpdate>;
  skippedNow: SkippedRecord[];
}

/**
 * Phase B's plan, under the write lock: what phase A learned about each source (`upstream`)
 * applied to the topic as it is now (`front`, its manifest and skipped list, `before`: what its
 * folder holds). Adds the counts, per-source reports and warnings to `r`; throws when every
 * source failed. Writes nothing.
 */
export function planRefresh(
  id: string,
  current: { front: TopicFront; manifest: FileRecord[]; skippedBefore: SkippedRecord[]; before: TreeScan },
  upstream: Pick<Upstream, 'seen' | 'prefixes' | 'outcomes'>,
  r: Pick<RefreshResult, 'added' | 'changed' | 'removed' | 'unchanged' | 'warnings' | 'sources'>,
): RefreshPlan {
  const { front, manifest, skippedBefore, before } = current;
  const { seen, prefixes, outcomes } = upstream;
  /** What the topic's sources leave out after this refresh: `.tkoma-skipped.jsonl`. */
  const skippedNow: SkippedRecord[] = [];
  const records = new Map<string, FileRecord>();
  const touched: Touched = new Map();
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
  return { records, touched, sourceUpdates, skippedNow };
}
