/**
 * `--dry-run` of `topic create` and `refresh`: what would be fetched (or added, changed,
 * removed), what would be skipped and why, and what indexing it would cost, with nothing written.
 * Create probes the sources as phase 1 does, without issuing a token (the token's secret lives in
 * the root). Refresh runs its real phase A into a temporary folder outside the root, compares
 * with the topic as it stands, and deletes the folder: no lock, no staging, no commit.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { appendAll } from '../append.js';
import type { ApprovalEstimate } from '../estimate/estimate.js';
import { estimateFor, workOf } from '../estimate/for-request.js';
import type { Progress } from '../progress.js';
import type { Limits } from '../safety/limits.js';
import { readSkipped, type SkippedRecord } from '../store/skipped.js';
import { readManifest, readTopic } from '../store/topic-files.js';
import { assertNew } from './create.js';
import { probeSources, type SourceDetails } from './create-probe.js';
import { skippedRecords } from './fetch.js';
import { capsPreview, type FetchLimits } from './fetch-limits.js';
import { sha256 } from './file-records.js';
import { fetchUpstream } from './refresh-fetch.js';
import { diffRecords, type SourceRefresh } from './refresh-plan.js';
import type { CreateRequest } from './request.js';
import { type SkipReport, skipReport } from './skip-report.js';

export interface CreateDryRun {
  status: 'dry_run';
  operation: 'create';
  topic_id: string;
  title: string;
  sources: SourceDetails[];
  /** The files the fetch would keep, in each source's path order (web pages by URL). */
  files: { path: string; bytes: number | null; source: string }[];
  file_count: number;
  /** null when a source's sizes are known only at fetch time. */
  total_bytes: number | null;
  skipped: SkipReport;
  caps: { would_skip: Record<string, number>; notes: string[] };
  limits: Limits;
  estimate: ApprovalEstimate | null;
}

export async function dryRunCreate(root: string, req: CreateRequest, progress: Progress, explicit?: FetchLimits): Promise<CreateDryRun> {
  assertNew(root, req.topic_id);
  const { limits, probed } = await probeSources(root, req, progress, explicit);
  const details = probed.map((p) => p.details);
  const files = probed.flatMap((p) => p.kept);
  // An npm package's files are known only from the tarball: the registry's counts stand in.
  const packages = details.filter((d) => d.type === 'npm');
  const known = files.every((f) => f.bytes !== null) && packages.every((d) => typeof d.total_bytes === 'number');
  return {
    status: 'dry_run',
    operation: 'create',
    topic_id: req.topic_id,
    title: req.title,
    sources: details,
    files,
    file_count: files.length + packages.reduce((n, d) => n + (d.file_count ?? 0), 0),
    total_bytes: known ? files.reduce((n, f) => n + (f.bytes ?? 0), 0) + packages.reduce((n, d) => n + (d.total_bytes ?? 0), 0) : null,
    skipped: skipReport(probed.flatMap((p) => p.skipped)),
    caps: capsPreview(details),
    limits,
    estimate: await estimateFor(root, workOf(probed)),
  };
}

export interface RefreshDryRun {
  topic_id: string;
  dry_run: true;
  sources: SourceRefresh[];
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: number;
  /** Files edited here that upstream changed or removed: a refresh would keep the edited version. */
  conflicts: { path: string; upstream: 'changed' | 'removed' }[];
  /** What the topic's sources would leave out after the refresh. */
  skipped: SkipReport;
  /** Re-indexing the added and changed files. */
  estimate: ApprovalEstimate | null;
}

/**
 * What a refresh of one topic would add, change, remove and skip, fetched into a temporary folder; writes nothing.
 * @public loaded with import() by src/commands/refresh.ts, which static analysis does not follow.
 */
export async function dryRunRefresh(root: string, id: string, opts: { progress: Progress; limits?: FetchLimits }): Promise<RefreshDryRun> {
  const staging = await mkdtemp(join(tmpdir(), 'tkoma-ref-dry-run-'));
  try {
    const { seen, prefixes, outcomes } = await fetchUpstream(root, id, staging, opts);
    const { dir } = await readTopic(root, id);
    const manifest = await readManifest(dir);
    const skippedBefore = await readSkipped(dir);
    const out: RefreshDryRun = { topic_id: id, dry_run: true, sources: [], added: [], changed: [], removed: [], unchanged: 0, conflicts: [], skipped: skipReport([]), estimate: null };
    const skippedNow: SkippedRecord[] = [];
    const work: { path: string; bytes: number }[] = [];
    let remote = false;
    for (const [i, src] of seen.sources.entries()) {
      const owned = manifest.filter((rec) => rec.source_url === src.url && (!prefixes[i] || rec.path.startsWith(`${prefixes[i]}/`)));
      const report: SourceRefresh = { type: src.type, url: src.url, ...(src.ref ? { ref: src.ref } : {}), status: 'updated', ...(src.commit ? { old_commit: src.commit } : {}) };
      const o = outcomes[i]!;
      if (o.kind !== 'fetched') {
        report.status = o.kind;
        if (o.kind === 'up_to_date') report.new_commit = o.remote;
        else report.error = o.error;
        out.unchanged += owned.length;
        appendAll(skippedNow, skippedBefore.filter((s) => s.source === src.url && (!prefixes[i] || s.path.startsWith(`${prefixes[i]}/`))));
      } else {
        const d = diffRecords(owned, o.fetched.files);
        if (o.fetched.source.commit) report.new_commit = o.fetched.source.commit;
        if (d.added.length + d.changed.length + d.removed.length === 0) report.status = 'up_to_date';
        appendAll(out.added, d.added.map((r) => r.path));
        appendAll(out.changed, d.changed.map((r) => r.path));
        appendAll(out.removed, d.removed.map((r) => r.path));
        out.unchanged += d.unchanged.length;
        appendAll(work, [...d.added, ...d.changed].map((r) => ({ path: r.path, bytes: r.bytes })));
        remote ||= src.type !== 'git' || !src.url.startsWith('file:');
        appendAll(skippedNow, skippedRecords(o.fetched.skipped));
        // A file upstream would replace or remove whose bytes are not what was fetched was edited here.
        for (const [how, recs] of [['changed', d.changed], ['removed', d.removed]] as const) {
          for (const rec of recs) {
            const old = owned.find((x) => x.path === rec.path);
            const live = await readFile(join(dir, rec.path)).catch(() => null);
            if (old && live && sha256(live) !== old.sha256) out.conflicts.push({ path: rec.path, upstream: how });
          }
        }
      }
      out.sources.push(report);
    }
    out.skipped = skipReport(skippedNow);
    out.estimate = work.length > 0 ? await estimateFor(root, { files: work, remote }) : null;
    return out;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
