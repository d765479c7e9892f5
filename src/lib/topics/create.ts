/**
 * `topic create`: phase 1 gathers metadata and answers approval_required (a pending request the
 * operator decides, or in token mode a token bound to the request: src/lib/approval/gate.ts);
 * phase 2 (approved, or --yes) fetches into a staging folder inside the root, writes
 * topic.md and the file manifest, moves the folder into place, commits once, and indexes.
 * Phase 1 is create-approval.ts (its look at the sources, create-probe.ts); this module is the
 * entry and phase 2.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { approvalGate } from '../approval/gate.js';
import { ChunksAhead } from '../chunking/ahead.js';
import { canonicalRequest } from '../approval/token.js';
import { TkomaError } from '../errors.js';
import type { CommitAuthor } from '../root-git.js';
import { holdPoint } from '../hold.js';
import { crashPoint, runMutation, stagingPath } from '../mutation.js';
import { assertRootIdle } from '../root-state.js';
import type { Progress } from '../progress.js';
import { repoDisplayName } from '../sources/git-url.js';
import { sourceVersion, type TopicFront, type TopicSource } from '../store/model.js';
import { SKIPPED_FILE, writeSkipped } from '../store/skipped.js';
import { topicDir, topicExists, writeManifest, writeTopic } from '../store/topic-files.js';
import { effectiveLimits, type Limits } from '../safety/limits.js';
import { untrustedSummary, withUntrustedWarnings } from '../safety/warnings.js';
import { type ApprovalRequired, phaseOne } from './create-approval.js';
import { type CrawlSummary, fetchSources, skippedRecords } from './fetch.js';
import { assertSourcesAllowed, type FetchLimits, resolveLimits } from './fetch-limits.js';
import { type SkipReport, skipReport } from './skip-report.js';
import { indexTopics } from './indexing.js';
import type { CreateRequest } from './request.js';
import { countOf, shortSha } from './summary.js';
import { withYoungGenerationHeld } from '../young-generation.js';

export interface CreateResult {
  status: 'created';
  topic_id: string;
  title: string;
  file_count: number;
  chunk_count: number;
  commit: string;
  /** `version`: what the files are at (npm's exact version, a git tag), as hits carry it. */
  sources: { type: string; url: string; ref?: string; commit?: string; final_url?: string; package?: string; version?: string; file_count: number; ok: boolean; error?: string; crawl?: CrawlSummary }[];
  /** What the fetch left out; every path with its reason is in the topic's `.tkoma-skipped.jsonl`. */
  skipped: SkipReport & { file?: string };
  warnings: string[];
  vector_search: { available: boolean; embedder?: string; reason?: string };
  limits: Limits;
  /** Files with possible prompt injection or hidden text (details in `topic show`). */
  untrusted: { files: number; by_kind: Record<string, number> };
}

export interface CreateOptions {
  approve?: string;
  yes?: boolean;
  author: CommitAuthor;
  /** Who asked, for the operator's `approvals` list: `cli`, or `mcp (<client>)`. */
  via?: string;
  /** false: the operator answers at a terminal prompt now, so phase 1 leaves no pending request behind. */
  record?: boolean;
  embedderFlag?: string;
  limits?: FetchLimits;
  progress: Progress;
}

export function assertNew(root: string, id: string): void {
  if (topicExists(root, id)) {
    throw new TkomaError('TOPIC_EXISTS', `topic "${id}" already exists: refresh it, update it, or give another \`topic_id\``, { topic_id: id });
  }
}

export async function createTopic(root: string, req: CreateRequest, opts: CreateOptions): Promise<ApprovalRequired | CreateResult> {
  assertNew(root, req.topic_id);
  // Caps change what is fetched, so a token binds them when the request sets any.
  const canonical = canonicalRequest(req) + (req.limits ? `\nlimits ${JSON.stringify(effectiveLimits(req.limits))}` : '');
  const gate = await approvalGate(root, canonical, { approve: opts.approve, yes: opts.yes });
  if (!gate.go) return phaseOne(root, req, { canonical, mode: gate.mode, request_hash: gate.request_hash }, opts);
  try {
    return await withYoungGenerationHeld(() => phaseTwo(root, req, opts));
  } catch (err) {
    // Nothing was created: the operator's yes (or the token) still stands for this request.
    if (!topicExists(root, req.topic_id)) await gate.release().catch(() => undefined);
    throw err;
  }
}

function commitMessage(req: CreateRequest, fileCount: number, fetched: { source: TopicSource }[]): string {
  const git = fetched.filter((f) => f.source.type === 'git').map((f) => `${repoDisplayName(f.source.url)}@${f.source.version && f.source.ref ? f.source.ref : shortSha(f.source.commit)}`);
  git.push(...fetched.filter((f) => f.source.type === 'npm').map((f) => `npm ${f.source.package}@${f.source.resolved_version}`));
  const web = fetched.filter((f) => f.source.type === 'web').length;
  const from = [...git, ...(web ? [`${web} web page${web === 1 ? '' : 's'}`] : [])].join(' + ');
  return `create topic ${req.topic_id}: ${countOf(fileCount, 'file')} from ${from}\n\n${req.title}`;
}

async function phaseTwo(root: string, req: CreateRequest, opts: CreateOptions): Promise<CreateResult> {
  // A root mid-merge or on a detached HEAD is refused before minutes of fetching, not after.
  assertRootIdle(root, [`references/${req.topic_id}`]);
  // Fetching can take minutes: it happens in a staging folder of this process, without the lock.
  const staging = stagingPath(root, req.topic_id);
  // The fetched blobs, packed for the root's object store: `git add` then finds them stored.
  const packs = stagingPath(root, `${req.topic_id}-objects`);
  let created: Omit<CreateResult, 'chunk_count' | 'vector_search'>;
  // The files are cut on the chunk threads while the rest is fetched; the sync takes what still matches.
  const ahead = new ChunksAhead(req.topic_id);
  const t0 = performance.now();
  let indexed;
  let t1;
  try {
    try {
      created = await fetchAndCommit(root, req, opts, staging, packs, ahead);
    } finally {
      await rm(staging, { recursive: true, force: true });
      await rm(packs, { recursive: true, force: true });
    }
    t1 = performance.now();
    indexed = await indexTopics(root, [req.topic_id], { embedderFlag: opts.embedderFlag, progress: opts.progress, author: opts.author, ahead });
  } finally {
    await ahead.close(); // no thread outlives the create, whatever failed
  }
  // This machine's speed, for the next estimate (src/lib/estimate/rates.ts).
  if (indexed.chunks[req.topic_id] !== undefined) {
    const { recordCreate } = await import('../estimate/rates.js');
    // performance.now() counts from the process's start: the command's own start (not so in the MCP server).
    const start = !opts.via?.startsWith('mcp') && t0 < 60_000 ? { start_s: t0 / 1000 } : {};
    await recordCreate(root, { files: created.file_count, chunks: indexed.chunks[req.topic_id]!, fetch_s: (t1 - t0) / 1000, index_s: (performance.now() - t1) / 1000, ...start });
  }
  const { status, topic_id, title, file_count, commit, sources, skipped, warnings, limits, untrusted } = created;
  return {
    status,
    topic_id,
    title,
    file_count,
    chunk_count: indexed.chunks[req.topic_id] ?? 0,
    commit,
    sources,
    skipped,
    warnings: [...warnings, ...indexed.warnings],
    vector_search: indexed.vector_search,
    limits,
    untrusted,
  };
}

/**
 * Phase 2 up to the commit. The answer is made here, all but the index's part: the per-file
 * records of the fetch (thousands of objects) are then garbage before the indexing starts.
 */
async function fetchAndCommit(
  root: string,
  req: CreateRequest,
  opts: CreateOptions,
  staging: string,
  packs: string,
  ahead: ChunksAhead,
): Promise<Omit<CreateResult, 'chunk_count' | 'vector_search'>> {
  const finalDir = topicDir(root, req.topic_id);
  const written = await fetchAndWrite(root, req, opts, staging, packs, ahead);
  crashPoint('create:fetched');
  await holdPoint('create:fetched');
  // Under the write lock: the complete folder appears with one rename and is committed; a crash
  // or failure before the commit takes it back out (runMutation).
  const { commit } = await opts.progress.task('Commit', () =>
    runMutation(root, { op: 'create', topicId: req.topic_id, author: opts.author }, async (m) => {
      assertNew(root, req.topic_id); // a parallel create of the same id may have won
      if (existsSync(finalDir) && readdirSync(finalDir).length > 0) {
        throw new TkomaError('TOPIC_EXISTS', `references/${req.topic_id} already exists (without topic.md): move it away or give another \`topic_id\``, {
          topic_id: req.topic_id,
        });
      }
      m.willWrite([`references/${req.topic_id}`]);
      await mkdir(join(root, 'references'), { recursive: true });
      await rename(staging, finalDir);
      crashPoint('create:moved');
      await m.adoptPacks(packs);
      return { message: written.message, value: null };
    }),
  );
  if (!commit) throw new TkomaError('INTERNAL', 'nothing was committed');

  return { status: 'created', topic_id: req.topic_id, title: req.title, commit, ...written.answer };
}

/** What the commit and the answer need of a fetch, once its files are written. */
interface Written {
  message: string;
  answer: Omit<CreateResult, 'status' | 'topic_id' | 'title' | 'commit' | 'chunk_count' | 'vector_search'>;
}

/**
 * Fetches into the staging folder and writes topic.md, the manifest and the skipped list. Only
 * counts and summaries leave it: the per-file records (a few hundred bytes each, 690k of them at a
 * million chunks) are garbage before the commit's git processes run.
 */
async function fetchAndWrite(root: string, req: CreateRequest, opts: CreateOptions, staging: string, packs: string, ahead: ChunksAhead): Promise<Written> {
  await mkdir(staging, { recursive: true });
  const { limits, fetch } = await resolveLimits(root, req.limits, opts.limits);
  if (fetch.policy) assertSourcesAllowed(fetch.policy, req.sources);
  const fetched = await fetchSources(req.sources, staging, opts.progress, fetch, { packsDir: packs, ahead });
  const ok = fetched.filter((f) => f.ok);
  if (ok.length === 0) {
    throw new TkomaError('SOURCE_UNREACHABLE', `every source failed: ${fetched.map((f) => `${f.source.url}: ${f.error?.message}`).join('; ')}`, {
      sources: fetched.map((f) => ({ url: f.source.url, error: f.error })),
    });
  }
  const records = ok.flatMap((f) => f.files);
  if (records.length === 0) throw new TkomaError('EMPTY_FETCH', 'the sources gave no files to keep (everything was filtered or skipped)');

  const now = new Date().toISOString();
  const front: TopicFront = {
    id: req.topic_id,
    title: req.title,
    type: 'ReferenceTopic',
    created_at: now,
    trust_score: req.trust_score,
    tags: req.tags,
    status: 'active',
    fetched_at: now,
    max_age_days: req.max_age_days,
    files: records.map((r) => r.path).sort(),
    ...(opts.author.ghost || opts.author.model ? { created_by: { ...opts.author } } : {}),
    sources: fetched.map((f) => f.source),
  };
  await writeTopic(staging, front, withUntrustedWarnings(req.body, records));
  await writeManifest(staging, records);
  const skipped = fetched.flatMap((f) => f.skipped);
  await writeSkipped(staging, skippedRecords(skipped));
  return {
    message: commitMessage(req, records.length, ok),
    answer: {
      file_count: records.length,
      sources: fetched.map((f) => ({
        type: f.source.type,
        url: f.source.url,
        ...(f.source.ref ? { ref: f.source.ref } : {}),
        ...(f.source.commit ? { commit: f.source.commit } : {}),
        ...(f.source.final_url ? { final_url: f.source.final_url } : {}),
        ...(f.source.package ? { package: f.source.package } : {}),
        ...(sourceVersion(f.source) ? { version: sourceVersion(f.source) } : {}),
        file_count: f.files.length,
        ok: f.ok,
        ...(f.error ? { error: f.error.message } : {}),
        ...(f.crawl ? { crawl: f.crawl } : {}),
      })),
      skipped: { ...skipReport(skipped), ...(skipped.length > 0 ? { file: SKIPPED_FILE } : {}) },
      warnings: fetched.filter((f) => !f.ok).map((f) => `${f.source.url}: ${f.error?.message}`),
      limits,
      untrusted: untrustedSummary(records),
    },
  };
}
