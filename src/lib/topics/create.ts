/**
 * `topic create`: phase 1 gathers metadata and answers approval_required (a pending request the
 * operator decides, or in token mode a token bound to the request: src/lib/approval/gate.ts);
 * phase 2 (approved, or --yes) fetches into a staging folder inside the root, writes
 * topic.md and the file manifest, moves the folder into place, commits once, and indexes.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { approvalGate } from '../approval/gate.js';
import { recordRequest } from '../approval/requests.js';
import { approvalLine, canonicalRequest, issueToken } from '../approval/token.js';
import type { ApprovalMode } from '../store/config.js';
import { TkomaError } from '../errors.js';
import type { ApprovalEstimate } from '../estimate/estimate.js';
import { estimateFor, workOf } from '../estimate/for-request.js';
import type { CommitAuthor } from '../root-git.js';
import { holdPoint } from '../hold.js';
import { crashPoint, runMutation, stagingPath } from '../mutation.js';
import { assertRootIdle } from '../root-state.js';
import type { Progress } from '../progress.js';
import { type GitProbe, probeGitSource } from '../sources/git.js';
import { gitSourceLabel, repoDisplayName } from '../sources/git-url.js';
import type { CrawlOptions } from '../sources/crawl/options.js';
import { resolveVersionTag } from '../sources/git-version.js';
import { resolveNpmSource } from '../sources/npm/npm.js';
import { sourceVersion, type TopicFront, type TopicSource } from '../store/model.js';
import { SKIPPED_FILE, writeSkipped } from '../store/skipped.js';
import { isReservedName, topicDir, topicExists, writeManifest, writeTopic } from '../store/topic-files.js';
import { type Budget, CAP_REASONS, effectiveLimits, type Limits } from '../safety/limits.js';
import { untrustedSummary, withUntrustedWarnings } from '../safety/warnings.js';
import { assertSourcesAllowed, type CrawlSummary, budgetFor, capsNoteForPage, capsNoteForRepo, capsPreview, fetchSources, sourcePrefixes, type FetchLimits, resolveLimits, type SkippedFile, skippedRecords } from './fetch.js';
import { type SkipReport, skipReport } from './skip-report.js';
import { indexTopics } from './indexing.js';
import type { CreateRequest, SourceRequest } from './request.js';
import { approvalSummary, countOf, shortSha } from './summary.js';
import { withYoungGenerationHeld } from '../young-generation.js';

export interface SourceDetails {
  type: 'git' | 'web' | 'npm';
  url: string;
  /** Web sources: the host (and port) the page will be requested from. */
  host?: string;
  display_name: string;
  ref?: string | null;
  /** npm: the package; npm and git: the version asked for, and (npm) the exact version it resolves to now. */
  package?: string;
  version?: string;
  resolved_version?: string;
  /** npm: the repository and commit the version was published from, and its tarball's integrity. */
  repository?: string;
  git_head?: string;
  integrity?: string | null;
  deprecated?: string;
  paths?: string[];
  default_branch?: string | null;
  commit?: string;
  file_count?: number;
  total_bytes?: number | null;
  languages?: { name: string; files: number; bytes: number | null }[];
  skipped?: Record<string, number>;
  /** Files the topic's caps would leave out of this source, by reason (max_files, max_topic_bytes, too_large). */
  capped?: Record<string, number>;
  /** What the probe cannot tell about the caps (sizes unknown before the fetch, a page too large). */
  caps_note?: string;
  description?: string;
  reachable?: boolean;
  status?: number;
  content_type?: string;
  error?: string;
  /** A crawl: what phase 1 read (robots.txt, llms.txt, sitemaps; never a page) and the bound approved. */
  crawl?: CrawlPreview;
}

export interface CrawlPreview {
  /** `up to 200 pages under https://host/docs/` (depth 5): the crawl never goes past it. */
  bound: string;
  scope: string;
  max_pages: number;
  max_depth: number;
  include?: string[];
  exclude?: string[];
  /** In-scope pages llms.txt and sitemaps name (the crawl also follows links from pages). */
  found: number;
  first: string[];
  robots_txt: boolean;
  llms_txt: string | null;
  sitemaps: string[];
  crawl_delay_s?: number;
  left_out: Record<string, number>;
}

export interface ApprovalRequired {
  status: 'approval_required';
  reason: 'REFERENCE_TOPIC_CREATE';
  topic_id: string;
  title: string;
  summary: string;
  /** The line gateways look for; also printed on stderr. */
  approval_line: string;
  sources: SourceDetails[];
  /** Who approves: `operator` (a pending request, no token) or `token` (`[approval] mode`). */
  approval_mode: ApprovalMode;
  /** Operator mode: the pending request the operator decides with `tkoma-ref approve ID` / `deny ID`. */
  request_id?: string;
  /** Token mode only: approves this exact request, once. */
  token?: string;
  expires_at: string;
  hint: string;
  /** The caps the fetch will apply, and what they would leave out as far as the probes can tell. */
  limits: Limits;
  caps: { would_skip: Record<string, number>; notes: string[] };
  /** What the fetch would leave out, per reason and per folder (as far as the probe can tell before the blobs). */
  skipped: SkipReport;
  /** Chunks, time to searchable and to full vectors with the recorded embedder (src/lib/estimate/). */
  estimate?: ApprovalEstimate;
}

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

/** What phase 1 can say about a page it does not request. */
const WEB_SIZE_NOTE = 'the page is not requested before approval: its size is known at fetch time';

/** One probed source: its approval details, and the files it would keep and skip (topic paths). */
export interface ProbedSource {
  details: SourceDetails;
  /** `size_hint`: a size the snapshot lacked, for the estimate only (src/lib/sources/git.ts). */
  kept: { path: string; bytes: number | null; source: string; size_hint?: number }[];
  skipped: SkippedFile[];
}

/** Probes one source within the topic's remaining budget, which it reduces by what would be kept. */
async function probeSource(src: SourceRequest, limits: FetchLimits, budget: Budget, prefix = ''): Promise<ProbedSource> {
  if (src.type === 'npm') return probeNpm(src, budget, limits);
  if (src.type === 'web' && src.crawl) return probeCrawl(src, src.crawl, budget, limits);
  if (src.type === 'web') {
    // Phase 1 sends nothing to a web URL (it would make phase 1 a port scanner the ghost aims):
    // the page is counted, its URL validated and checked against the policy, nothing more.
    const full = budget.files <= 0 ? CAP_REASONS.max_files : null;
    budget.files -= 1;
    const details: SourceDetails = {
      type: 'web',
      url: src.url,
      host: new URL(src.url).host,
      display_name: src.url,
      file_count: 1,
      ...(full ? { capped: { [full]: 1 } } : {}),
      caps_note: capsNoteForPage(undefined, limits) ?? WEB_SIZE_NOTE,
    };
    const page = { path: src.url, bytes: null, source: src.url };
    return { details, kept: full ? [] : [page], skipped: full ? [{ path: src.url, reason: full, source: src.url }] : [] };
  }
  // A version range is resolved to its newest tag now, and the probe looks at that tag.
  const tag = src.version ? await resolveVersionTag(src.url, src.version, { policy: limits.policy }) : undefined;
  const p: GitProbe = await probeGitSource(tag ? { url: src.url, ref: `refs/tags/${tag.tag}`, ...(src.paths ? { paths: src.paths } : {}) } : src, {
    ...(limits.policy ? { policy: limits.policy } : {}),
    maxFileBytes: limits.maxFileBytes,
    maxFiles: Math.max(0, budget.files),
    maxTotalBytes: Math.max(0, budget.bytes),
    isReserved: (path) => isReservedName(prefix ? `${prefix}/${path}` : path),
  });
  budget.files -= p.file_count;
  if (!p.sizes_unknown && p.total_bytes !== null) budget.bytes -= p.total_bytes;
  const capped = { ...(p.skipped.too_large ? { too_large: p.skipped.too_large } : {}), ...p.capped };
  const at = (path: string) => (prefix ? `${prefix}/${path}` : path);
  const details: SourceDetails = {
    type: 'git',
    url: src.url,
    // In full, local paths marked (repoDisplayName showed `file:///home/me/.password-store` as `.password-store`).
    display_name: gitSourceLabel(src.url),
    ref: tag ? tag.tag : p.ref,
    ...(src.version ? { version: src.version } : {}),
    ...(src.paths ? { paths: src.paths } : {}),
    default_branch: p.default_branch,
    commit: p.commit,
    file_count: p.file_count,
    total_bytes: p.total_bytes,
    languages: p.languages,
    skipped: p.skipped,
    ...(Object.keys(capped).length > 0 ? { capped } : {}),
    ...(p.sizes_unknown ? { caps_note: capsNoteForRepo(p.total_bytes, limits) } : {}),
    ...(p.description ? { description: p.description } : {}),
  };
  return {
    details,
    kept: p.kept_files.map((f) => ({ path: at(f.path), bytes: f.bytes, source: src.url, ...(f.size_hint !== undefined ? { size_hint: f.size_hint } : {}) })),
    skipped: p.skipped_files.map((s) => ({ path: at(s.path), reason: s.reason, source: src.url, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) })),
  };
}

/**
 * An npm package in phase 1: the registry's documents only. The file count and unpacked size are
 * what the registry publishes for the whole package (before the filters); the caps are applied to
 * them as far as counts allow, and exactly at fetch time.
 */
async function probeNpm(src: SourceRequest, budget: Budget, limits: FetchLimits): Promise<ProbedSource> {
  const r = await resolveNpmSource({ package: src.package!, ...(src.version ? { version: src.version } : {}) }, limits.policy ? { policy: limits.policy } : {});
  const files = r.file_count ?? 0;
  const over = files > budget.files ? files - Math.max(0, budget.files) : 0;
  budget.files -= files;
  if (r.unpacked_bytes !== null) budget.bytes -= r.unpacked_bytes;
  const details: SourceDetails = {
    type: 'npm',
    url: src.url,
    display_name: `${r.package}@${r.version}`,
    package: r.package,
    version: r.spec,
    resolved_version: r.version,
    ...(r.file_count !== null ? { file_count: r.file_count } : {}),
    total_bytes: r.unpacked_bytes,
    ...(over > 0 ? { capped: { [CAP_REASONS.max_files]: over } } : {}),
    caps_note: 'counts as the registry publishes them, before the filters; sizes of single files are known at fetch time',
    ...(r.repository ? { repository: r.repository } : {}),
    ...(r.git_head ? { git_head: r.git_head } : {}),
    integrity: r.integrity,
    ...(r.description ? { description: r.description } : {}),
    ...(r.deprecated ? { deprecated: r.deprecated } : {}),
  };
  return { details, kept: [], skipped: [] };
}

/** Phase 1 of a crawl: robots.txt, llms.txt and sitemaps only (never a page), and the bound. */
async function probeCrawl(src: SourceRequest, crawl: CrawlOptions, budget: Budget, limits: FetchLimits): Promise<ProbedSource> {
  const { discoverSite } = await import('../sources/crawl/crawl.js');
  const { pageFileName } = await import('../sources/crawl/urls.js');
  const d = await discoverSite(src.url, crawl, { policy: limits.policy });
  const maxPages = Math.min(crawl.max_pages, Math.max(0, budget.files));
  const under = `${d.scope.origin}${d.scope.prefix}`;
  const found = [...d.pages.values()];
  const preview: CrawlPreview = {
    bound: `up to ${countOf(maxPages, 'page')} under ${under} (link depth ${crawl.max_depth})`,
    scope: crawl.scope,
    max_pages: maxPages,
    max_depth: crawl.max_depth,
    ...(crawl.include ? { include: crawl.include } : {}),
    ...(crawl.exclude ? { exclude: crawl.exclude } : {}),
    found: found.length,
    first: found.slice(0, 10),
    robots_txt: d.found.robots_txt,
    llms_txt: d.found.llms_txt,
    sitemaps: d.found.sitemaps,
    ...(d.robots.crawlDelay ? { crawl_delay_s: d.robots.crawlDelay } : {}),
    left_out: d.left_out,
  };
  const expected = Math.min(maxPages, Math.max(1, found.length));
  budget.files -= expected;
  const details: SourceDetails = { type: 'web', url: src.url, display_name: src.url, file_count: expected, crawl: preview };
  const kept = [src.url, ...found].slice(0, expected).map((u) => ({ path: pageFileName(u), bytes: null, source: src.url }));
  return { details, kept, skipped: [] };
}

/** Phase 1's look at every source (no writes): limits, and what each source would keep and skip. */
export async function probeSources(root: string, req: CreateRequest, progress: Progress, explicit?: FetchLimits): Promise<{ limits: Limits; probed: ProbedSource[] }> {
  const { limits, fetch } = await resolveLimits(root, req.limits, explicit);
  if (fetch.policy) assertSourcesAllowed(fetch.policy, req.sources);
  const budget = budgetFor(fetch);
  const probed = await progress.task('Gather source metadata', async (update) => {
    const out: ProbedSource[] = [];
    const prefixes = sourcePrefixes(req.sources);
    for (const [i, s] of req.sources.entries()) {
      update(s.url);
      out.push(await probeSource(s, fetch, budget, prefixes[i]));
    }
    return out;
  });
  return { limits, probed };
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

async function phaseOne(root: string, req: CreateRequest, ask: { canonical: string; mode: ApprovalMode; request_hash: string }, opts: CreateOptions): Promise<ApprovalRequired> {
  const { limits, probed } = await probeSources(root, req, opts.progress, opts.limits);
  const details = probed.map((p) => p.details);
  const summary = approvalSummary(details.map((d, i) => ({ ...d, filtered: !!req.sources[i].paths })));
  const estimate = await estimateFor(root, workOf(probed));
  const common = {
    status: 'approval_required' as const,
    reason: 'REFERENCE_TOPIC_CREATE' as const,
    topic_id: req.topic_id,
    title: req.title,
    summary,
    approval_line: approvalLine(summary),
    sources: details,
    approval_mode: ask.mode,
  };
  const rest = { limits, caps: capsPreview(details), skipped: skipReport(probed.flatMap((p) => p.skipped)), ...(estimate ? { estimate } : {}) };
  if (ask.mode === 'token') {
    const { token, expires_at } = await issueToken(root, ask.canonical);
    const hint = 'ask the operator; on approval run the same request again with --approve <token> (it approves this request once); if denied, retry with `paths` (README.md, docs/, examples/)';
    return { ...common, token, expires_at, hint, ...rest };
  }
  if (opts.record === false) return { ...common, expires_at: new Date().toISOString(), hint: 'answer the prompt', ...rest };
  const r = await recordRequest(root, {
    request_hash: ask.request_hash,
    topic_id: req.topic_id,
    title: req.title,
    summary,
    sources: details,
    ...(estimate ? { estimate } : {}),
    requested_by: { ...opts.author, via: opts.via ?? 'cli' },
  });
  const hint = `nothing was fetched. The operator decides: \`tkoma-ref approvals\`, then \`tkoma-ref approve ${r.request_id}\` or \`tkoma-ref deny ${r.request_id} --note …\`. Then run the identical request again: it proceeds once approved, or answers APPROVAL_DENIED (then retry with \`paths\`: README.md, docs/, examples/)`;
  return { ...common, request_id: r.request_id, expires_at: r.expires_at, hint, ...rest };
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
  const t0 = performance.now();
  try {
    created = await fetchAndCommit(root, req, opts, staging, packs);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(packs, { recursive: true, force: true });
  }
  const t1 = performance.now();
  const indexed = await indexTopics(root, [req.topic_id], { embedderFlag: opts.embedderFlag, progress: opts.progress, author: opts.author });
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
): Promise<Omit<CreateResult, 'chunk_count' | 'vector_search'>> {
  const finalDir = topicDir(root, req.topic_id);
  const written = await fetchAndWrite(root, req, opts, staging, packs);
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
async function fetchAndWrite(root: string, req: CreateRequest, opts: CreateOptions, staging: string, packs: string): Promise<Written> {
  await mkdir(staging, { recursive: true });
  const { limits, fetch } = await resolveLimits(root, req.limits, opts.limits);
  if (fetch.policy) assertSourcesAllowed(fetch.policy, req.sources);
  const fetched = await fetchSources(req.sources, staging, opts.progress, fetch, packs);
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
