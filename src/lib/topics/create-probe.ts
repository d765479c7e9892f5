/**
 * Phase 1 of `topic create` (and its `--dry-run`): each source looked at without fetching it, its
 * details for the approval answer and the files it would keep and skip within the topic's caps.
 * Git asks the server for the tree (no blobs), npm the registry's documents, a crawl reads
 * robots.txt, llms.txt and sitemaps; a single web page is not requested at all.
 */
import type { Progress } from '../progress.js';
import { type Budget, CAP_REASONS, type Limits } from '../safety/limits.js';
import type { CrawlOptions } from '../sources/crawl/options.js';
import { type GitProbe, probeGitSource } from '../sources/git.js';
import { gitSourceLabel } from '../sources/git-url.js';
import { resolveVersionTag } from '../sources/git-version.js';
import { resolveNpmSource } from '../sources/npm/npm.js';
import { isReservedName } from '../store/topic-files.js';
import type { SkippedFile } from './fetch.js';
import { assertSourcesAllowed, budgetFor, capsNoteForPage, capsNoteForRepo, type FetchLimits, resolveLimits } from './fetch-limits.js';
import { sourcePrefixes } from './naming.js';
import type { CreateRequest, SourceRequest } from './request.js';
import { countOf } from './summary.js';

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
