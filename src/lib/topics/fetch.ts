/**
 * Fetches a topic's sources into a folder, producing the tracked per-file records. Used by
 * create (into a staging folder) and refresh. One failing source is a warning; the caller decides
 * whether everything failing is an error.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { appendAll } from '../append.js';
import { roleForPath } from '../chunking/index.js';
import { asTkomaError, TkomaError } from '../errors.js';
import type { Progress } from '../progress.js';
import { DEFAULT_MAX_FINDINGS, detectHiddenText, detectInjection } from '../safety/injection.js';
import { type Budget, CAP_REASONS, DEFAULT_LIMITS, effectiveLimits, type Limits, type LimitsOverride } from '../safety/limits.js';
import { fetchGitSource, type LsRemoteListing } from '../sources/git.js';
import { resolveVersionTag } from '../sources/git-version.js';
import { npmFolder } from '../sources/npm/names.js';
import { fetchNpmSource, type NpmResolved, npmSourceFields } from '../sources/npm/npm.js';
import type { CrawlOptions } from '../sources/crawl/options.js';
import { gitUrlScheme, isFullCommitSha, redactUrl, repoDisplayName } from '../sources/git-url.js';
import { assertLocalRepositoryAllowed } from '../sources/local-roots.js';
import { literalRefusal, notAllowed, portOf, type SourcePolicy } from '../net/policy.js';
import { DEFAULT_MAX_BYTES as DEFAULT_WEB_MAX_BYTES } from '../sources/web-url.js';
import { policyOf, readConfig } from '../store/config.js';
import type { TopicSource } from '../store/model.js';
import { type FileFlag, type FileRecord, isReservedName, RESERVED_NAMES } from '../store/topic-files.js';
import type { SkippedRecord } from '../store/skipped.js';
import type { SourceRequest } from './request.js';
import { formatBytes, mergeCounts } from './summary.js';

export interface SkippedFile {
  path: string;
  reason: string;
  /** URL of the source that holds it (every file a fetch skips has one). */
  source?: string;
  bytes?: number;
  /** Crawled pages: the page's URL and what went wrong. */
  url?: string;
  error?: string;
}

export interface FetchedSource {
  source: TopicSource;
  ok: boolean;
  error?: { code: string; message: string };
  files: FileRecord[];
  skipped: SkippedFile[];
  /** Crawls: what the crawl found and did. */
  crawl?: CrawlSummary;
}

/** What a crawl found and did, in the create and refresh answers. */
export interface CrawlSummary {
  pages: number;
  not_modified: number;
  skipped: number;
  out_of_scope_links: number;
  found: { robots_txt: boolean; llms_txt: string | null; sitemaps: string[] };
  /** The pages left out, with why (the first 100; all are in `.tkoma-skipped.jsonl`). */
  skipped_pages: { url: string; reason: string }[];
}

export interface FetchLimits {
  maxFileBytes?: number;
  maxFiles?: number;
  /** Bytes all kept files of the topic may add up to. */
  maxTopicBytes?: number;
  webTimeoutMs?: number;
  webMaxBytes?: number;
  /** The root's network policy and local roots (resolveLimits reads them from tkoma-ref.toml). */
  policy?: SourcePolicy;
}

/**
 * The caps for a fetch: defaults, `[limits]` in tkoma-ref.toml, the request's `limits`; an
 * explicit FetchLimits from a programmatic caller (tests) wins over all three.
 */
export async function resolveLimits(root: string, request?: LimitsOverride, explicit: FetchLimits = {}): Promise<{ limits: Limits; fetch: FetchLimits }> {
  const config = await readConfig(root);
  const limits = effectiveLimits(config.limits, request, {
    ...(explicit.maxFiles !== undefined ? { max_files: explicit.maxFiles } : {}),
    ...(explicit.maxFileBytes !== undefined ? { max_file_bytes: explicit.maxFileBytes } : {}),
    ...(explicit.maxTopicBytes !== undefined ? { max_topic_bytes: explicit.maxTopicBytes } : {}),
  });
  return {
    limits,
    fetch: { policy: policyOf(config), ...explicit, maxFiles: limits.max_files, maxFileBytes: limits.max_file_bytes, maxTopicBytes: limits.max_topic_bytes },
  };
}

/**
 * What the policy refuses without any network traffic: local repositories outside
 * `[sources] local_roots`, and hosts named by an address (or `localhost`) that `[network] allow`
 * does not open. NOT_ALLOWED before anything is asked or written; names are checked when resolved.
 */
export function assertSourcesAllowed(policy: SourcePolicy, sources: readonly Pick<SourceRequest, 'type' | 'url'>[]): void {
  for (const src of sources) {
    // npm sources name a package, not an address: they go to the registry npm itself would use.
    if (src.type === 'npm') continue;
    if (src.type === 'git') {
      if (gitUrlScheme(src.url) === 'file') assertLocalRepositoryAllowed(policy, src.url);
      else {
        const host = gitHost(src.url);
        const why = host && literalRefusal(policy, host.host, host.port);
        if (why) throw notAllowed(redactUrl(src.url), why);
      }
      continue;
    }
    const url = new URL(src.url);
    const why = literalRefusal(policy, url.hostname, portOf(url));
    if (why) throw notAllowed(src.url, why);
  }
}

/** Host and port of a network git URL (scp-like included), or null. */
function gitHost(url: string): { host: string; port: number } | null {
  const scp = /^(?:[^@/:]+@)([A-Za-z0-9][A-Za-z0-9.-]*):/.exec(url);
  if (scp && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) return { host: scp[1]!, port: 22 };
  try {
    const parsed = new URL(url);
    return { host: parsed.hostname, port: portOf(parsed) };
  } catch {
    return null;
  }
}

/** Budget of a whole topic from FetchLimits (unset caps are unlimited). */
export function budgetFor(limits: FetchLimits): Budget {
  return { files: limits.maxFiles ?? Number.POSITIVE_INFINITY, bytes: limits.maxTopicBytes ?? Number.POSITIVE_INFINITY };
}

/** Why a git probe cannot tell the caps' effect: the server sent no blobs, so no sizes. */
export function capsNoteForRepo(totalBytes: number | null, limits: FetchLimits): string {
  const cap = limits.maxTopicBytes ?? Number.POSITIVE_INFINITY;
  const over = totalBytes !== null && totalBytes > cap;
  return (
    `sizes are known only at fetch time: files over max_file_bytes (${formatBytes(limits.maxFileBytes ?? DEFAULT_LIMITS.max_file_bytes)}) ` +
    `and past max_topic_bytes (${formatBytes(cap === Number.POSITIVE_INFINITY ? DEFAULT_LIMITS.max_topic_bytes : cap)}) will be skipped then` +
    (over ? `; the repository (${formatBytes(totalBytes)} with history) is larger than max_topic_bytes` : '')
  );
}

/** A page whose declared size is over the download cap will be refused; under it, nothing to say. */
export function capsNoteForPage(bytes: number | undefined, limits: FetchLimits): string | undefined {
  const max = limits.webMaxBytes ?? DEFAULT_WEB_MAX_BYTES;
  if (bytes !== undefined && bytes > max) return `the page is ${formatBytes(bytes)}, over the ${formatBytes(max)} download cap: it will be refused`;
  return undefined;
}

/** The approval answer's view of the caps: files they would leave out, and what is not known yet. */
export function capsPreview(details: readonly { capped?: Record<string, number>; caps_note?: string; display_name: string }[]): { would_skip: Record<string, number>; notes: string[] } {
  return {
    would_skip: mergeCounts(details.map((d) => d.capped)),
    notes: details.filter((d) => d.caps_note).map((d) => `${d.display_name}: ${d.caps_note}`),
  };
}

/** Injection findings for one fetched file, bounded (see src/lib/safety/injection.ts). */
export function flagsFor(data: Buffer, hiddenText?: readonly string[]): FileFlag[] {
  const findings = [...(hiddenText ? detectHiddenText(hiddenText) : []), ...detectInjection(data.toString('utf8'))];
  return findings.slice(0, DEFAULT_MAX_FINDINGS);
}

/** A path as a case-insensitive file system compares it: `/x` and `/X` would be one file there. */
export function nameKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/** topic.md and the manifest, compared case-folded (store/topic-files.ts: shared with phase 1). */
const isReserved = isReservedName;

/**
 * The names held in a topic folder, compared case-insensitively, files and the folders above
 * them: two sources never share a name, and a file never takes a name another source's folder
 * holds (or sits under another source's file). Web pages take the first free `<slug>.md`,
 * `<slug>-2.md`, …; git files keep their repository paths, so one whose name is held is skipped.
 */
export class NameBook {
  private readonly held = new Map<string, 'file' | 'dir'>();

  constructor(paths: Iterable<string> = []) {
    for (const r of RESERVED_NAMES) this.held.set(r, 'file');
    for (const p of paths) this.claim(p);
  }

  free(path: string): boolean {
    const parts = nameKey(path).split('/');
    for (let i = 1; i < parts.length; i++) if (this.held.get(parts.slice(0, i).join('/')) === 'file') return false;
    return !this.held.has(parts.join('/'));
  }

  claim(path: string): void {
    const parts = nameKey(path).split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!this.held.has(dir)) this.held.set(dir, 'dir');
    }
    this.held.set(parts.join('/'), 'file');
  }

  /** The first free name of `<base>.md`, `<base>-2.md`, …, claimed. */
  allocate(fileName: string): string {
    let name = fileName;
    for (let n = 2; !this.free(name); n++) name = fileName.replace(/\.md$/, `-${n}.md`);
    this.claim(name);
    return name;
  }
}

/**
 * How one fetch names its files: `book` holds every name the topic's other sources (and files
 * nobody fetched) already have; `recorded` is the name a web page got when first fetched, reused
 * for as long as the source exists so a refresh writes each page back where it was.
 */
export interface Naming {
  book: NameBook;
  recorded?: string;
  /**
   * A crawl refreshed: the pages stored before, by page URL (their names, validators and what
   * was fetched: a 304 keeps that record).
   */
  pages?: ReadonlyMap<string, { path: string; etag?: string; last_modified?: string; fetched: ContentFacts }>;
  /** Where the pages stored before are (the topic folder): their links are read from there when a page answers 304. */
  storedDir?: string;
}

/**
 * Folder of each source inside the topic: a lone git source fills the topic folder (paths kept as
 * in the repository); several git sources each get a folder named after the repository so their
 * files cannot collide. Web pages always sit at the top as `<url-slug>.md`.
 */
export function sourcePrefixes(sources: Pick<SourceRequest, 'type' | 'url' | 'package'>[]): string[] {
  const gitCount = sources.filter((s) => s.type === 'git').length;
  const used = new Set<string>();
  return sources.map((s) => {
    if (s.type === 'npm') return npmFolder(s.package ?? s.url.replace(/^npm:/, ''));
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

/** What a file's record says about its content: its size, hash and injection findings. */
export interface ContentFacts {
  bytes: number;
  sha256: string;
  flags: FileFlag[];
}

function factsOf(data: Buffer, hiddenText?: readonly string[]): ContentFacts {
  return { bytes: data.length, sha256: sha256(data), flags: flagsFor(data, hiddenText) };
}

async function recordFor(dir: string, rel: string, sourceUrl: string, fetchedAt: string, commit?: string, hiddenText?: readonly string[], known?: ContentFacts, version?: string): Promise<FileRecord> {
  const facts = known ?? factsOf(await readFile(join(dir, rel)), hiddenText);
  return {
    path: rel,
    source_url: sourceUrl,
    role: roleForPath(rel),
    bytes: facts.bytes,
    sha256: facts.sha256,
    fetched_at: fetchedAt,
    ...(commit ? { commit } : {}),
    ...(version ? { version } : {}),
    ...(facts.flags.length > 0 ? { flags: facts.flags } : {}),
  };
}

/**
 * A crawled site: every page kept under the site's folder (crawl/urls.ts), named once and kept
 * under that name across refreshes; pages left out are listed in `skipped` with their reason and
 * URL. A page a conditional request found unchanged (304) keeps the record of what was fetched
 * and writes nothing: the live file stays as it is, an operator's edit included (reading the live
 * file back would record the edit as an upstream change, and report it as a conflict).
 */
async function crawlSource(
  src: SourceRequest,
  crawl: CrawlOptions,
  destDir: string,
  limits: FetchLimits,
  update: (m: string) => void,
  budget: Budget,
  naming: Naming,
  fetchedAt: string,
  out: FetchedSource,
): Promise<void> {
  const { crawlSite, markdownLinks } = await import('../sources/crawl/crawl.js');
  const { pageFileName } = await import('../sources/crawl/urls.js');
  update(`crawling ${src.url}`);
  const known = new Map([...(naming.pages ?? [])].map(([url, p]) => [url, { ...(p.etag ? { etag: p.etag } : {}), ...(p.last_modified ? { last_modified: p.last_modified } : {}) }]));
  const result = await crawlSite(src.url, { ...crawl, max_pages: Math.min(crawl.max_pages, Math.max(budget.files, 0)) }, {
    limits: { timeoutMs: limits.webTimeoutMs, maxBytes: limits.webMaxBytes, maxStoredBytes: limits.maxFileBytes, ...(limits.policy ? { policy: limits.policy } : {}) },
    known,
    onPage: (done, url) => update(`crawled ${done} page${done === 1 ? '' : 's'}: ${url}`),
    storedLinks: async (key) => {
      const stored = naming.pages?.get(key);
      if (!stored || !naming.storedDir) return [];
      return markdownLinks(await readFile(join(naming.storedDir, stored.path), 'utf8').catch(() => ''));
    },
  });
  let kept = 0; // bytes of this crawl's pages so far
  for (const page of result.pages) {
    const before = naming.pages?.get(page.key);
    const name = before?.path ?? naming.book.allocate(pageFileName(page.key));
    if (before) naming.book.claim(name);
    let facts: ContentFacts | undefined;
    if (page.status === 'not_modified') {
      if (!before) continue; // cannot happen: only pages stored before are asked conditionally
      facts = before.fetched;
    } else {
      const md = page.page!.markdown;
      const bytes = Buffer.byteLength(md);
      const reason = limits.maxFileBytes !== undefined && bytes > limits.maxFileBytes ? CAP_REASONS.max_file_bytes : bytes > budget.bytes - kept ? CAP_REASONS.max_topic_bytes : null;
      if (reason) {
        out.skipped.push({ path: name, reason, source: src.url, bytes, url: page.url });
        continue;
      }
      const target = join(destDir, name);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, md, { flag: 'wx' });
    }
    const rec = await recordFor(destDir, name, src.url, fetchedAt, undefined, page.page?.hidden_text, facts);
    kept += rec.bytes;
    out.files.push({
      ...rec,
      role: 'docs',
      page_url: page.key,
      ...(page.final_url !== page.url ? { final_url: page.final_url } : {}),
      ...(page.etag ? { etag: page.etag } : {}),
      ...(page.last_modified ? { last_modified: page.last_modified } : {}),
    });
  }
  for (const skip of result.skipped) {
    out.skipped.push({ path: pageFileName(judgeKey(skip.url)), reason: skip.reason, source: src.url, url: skip.url, ...(skip.error ? { error: skip.error } : {}) });
  }
  out.crawl = {
    pages: result.pages.length,
    not_modified: result.pages.filter((p) => p.status === 'not_modified').length,
    skipped: result.skipped.length,
    out_of_scope_links: result.out_of_scope_links,
    found: result.discovery.found,
    skipped_pages: result.skipped.slice(0, 100).map((k) => ({ url: k.url, reason: k.reason })),
  };
  if (out.files.length === 0) throw new TkomaError('FETCH_FAILED', `the crawl of ${src.url} kept no page (${result.skipped.length} left out)`, { url: src.url });
}

/** A URL as a page key for naming a skipped page (its fragment and trailing slash dropped). */
function judgeKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    u.search = '';
    return u.href;
  } catch {
    return 'http://invalid/';
  }
}

/** Removes the folders above rel that removing it left empty (never destDir itself). */
async function removeEmptyParents(destDir: string, rel: string): Promise<void> {
  for (let dir = dirname(rel); dir !== '.' && dir !== '/'; dir = dirname(dir)) {
    try {
      await rmdir(join(destDir, dir));
    } catch {
      return; // not empty (or gone): the folders above are not empty either
    }
  }
}

function capError(message: string, details: Record<string, unknown>): TkomaError {
  return new TkomaError('FETCH_FAILED', message, details);
}

/**
 * Fetches one source into destDir. `budget` is the room left in the topic (files, bytes); it is
 * reduced by what this source keeps. Files past a cap are reported in `skipped` with the cap's
 * reason (too_large, max_files, max_topic_bytes).
 */
export async function fetchOneSource(
  src: SourceRequest,
  prefix: string,
  destDir: string,
  limits: FetchLimits,
  update: (m: string) => void,
  budget: Budget = budgetFor(limits),
  naming: Naming = { book: new NameBook() },
  packInto?: string,
  /**
   * What a refresh's up-to-date check just read, so the fetch does not ask again: `npm`, the
   * version the registry resolved; `listing`, a git remote's ls-remote answer for this url and ref.
   */
  checked: { npm?: NpmResolved; listing?: LsRemoteListing } = {},
): Promise<FetchedSource> {
  const fetchedAt = new Date().toISOString();
  const out: FetchedSource = { source: { ...src }, ok: false, files: [], skipped: [] };
  try {
    if (src.type === 'git') {
      const target = prefix ? join(destDir, prefix) : destDir;
      if (budget.files <= 0 || budget.bytes <= 0) {
        const reason = budget.files <= 0 ? CAP_REASONS.max_files : CAP_REASONS.max_topic_bytes;
        throw capError(`the topic is full (${reason}): nothing fetched from ${repoDisplayName(src.url)}`, { reason });
      }
      await mkdir(target, { recursive: true });
      // A version range names the newest matching tag; the tag is then fetched like any ref.
      const tag = src.version ? (await resolveVersionTag(src.url, src.version, { policy: limits.policy })).tag : undefined;
      const spec = tag ? { url: src.url, ref: `refs/tags/${tag}`, ...(src.paths ? { paths: src.paths } : {}) } : src;
      update(`cloning ${repoDisplayName(src.url)}${tag ?? src.ref ? `@${tag ?? src.ref}` : ''}`);
      // Hashed and scanned from the bytes being written: reading 10k files back cost seconds.
      const facts = new Map<string, ContentFacts>();
      const res = await fetchGitSource(spec, target, {
        maxFileBytes: limits.maxFileBytes,
        maxFiles: budget.files,
        maxTotalBytes: budget.bytes,
        keepExisting: true,
        ...(limits.policy ? { policy: limits.policy } : {}),
        onFile: (path, data) => facts.set(path, factsOf(data)),
        ...(packInto ? { packInto } : {}),
        // Only for the ref it was read for: a version range fetches the tag it resolves to.
        ...(checked.listing && !tag ? { listing: checked.listing } : {}),
      });
      out.source.commit = res.commit;
      if (tag) out.source.ref = tag;
      else if (!src.ref) out.source.ref = res.ref;
      if (res.ref_kind && (tag || (!src.ref?.startsWith('refs/') && !isFullCommitSha(out.source.ref ?? '')))) out.source.ref_kind = res.ref_kind;
      const version = out.source.ref_kind === 'tag' ? out.source.ref : undefined;
      appendAll(out.skipped, res.skipped.map((s) => ({ path: prefix ? `${prefix}/${s.path}` : s.path, reason: s.reason, source: src.url, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) })));
      for (const f of res.files) {
        const rel = prefix ? `${prefix}/${f.path}` : f.path;
        if (isReserved(rel) || !naming.book.free(rel)) {
          await rm(join(destDir, rel), { force: true });
          await removeEmptyParents(destDir, rel);
          out.skipped.push({ path: rel, reason: isReserved(rel) ? 'reserved_name' : 'duplicate_path', source: src.url, bytes: f.bytes });
          continue;
        }
        naming.book.claim(rel);
        out.files.push(await recordFor(destDir, rel, src.url, fetchedAt, res.commit, undefined, facts.get(f.path), version));
      }
    } else if (src.type === 'npm') {
      if (budget.files <= 0 || budget.bytes <= 0) {
        const reason = budget.files <= 0 ? CAP_REASONS.max_files : CAP_REASONS.max_topic_bytes;
        throw capError(`the topic is full (${reason}): nothing fetched from ${src.url}`, { reason });
      }
      update(`downloading ${src.package}@${src.version ?? 'latest'}`);
      const facts = new Map<string, ContentFacts>();
      const res = await fetchNpmSource({ package: src.package!, ...(src.version ? { version: src.version } : {}) }, join(destDir, prefix), {
        maxFileBytes: limits.maxFileBytes,
        maxFiles: budget.files,
        maxTotalBytes: budget.bytes,
        keepExisting: true,
        ...(limits.policy ? { policy: limits.policy } : {}),
        onFile: (path, data) => facts.set(path, factsOf(data)),
        ...(checked.npm ? { resolved: checked.npm } : {}),
      });
      Object.assign(out.source, npmSourceFields(res.resolved));
      appendAll(out.skipped, res.skipped.map((s) => ({ path: `${prefix}/${s.path}`, reason: s.reason, source: src.url, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) })));
      for (const f of res.files) {
        const rel = `${prefix}/${f.path}`;
        if (!naming.book.free(rel)) {
          await rm(join(destDir, rel), { force: true });
          out.skipped.push({ path: rel, reason: 'duplicate_path', source: src.url, bytes: f.bytes });
          continue;
        }
        naming.book.claim(rel);
        out.files.push(await recordFor(destDir, rel, src.url, fetchedAt, undefined, undefined, facts.get(f.path), res.resolved.version));
      }
    } else if (src.crawl) {
      await crawlSource(src, src.crawl, destDir, limits, update, budget, naming, fetchedAt, out);
    } else {
      update(`fetching ${src.url}`);
      // Loaded here: the HTML stack (~60 modules) is for web pages only, not for git or npm sources.
      const { fetchWebPage } = await import('../sources/web.js');
      const page = await fetchWebPage(src.url, {
        timeoutMs: limits.webTimeoutMs,
        maxBytes: limits.webMaxBytes,
        maxStoredBytes: limits.maxFileBytes,
        ...(limits.policy ? { policy: limits.policy } : {}),
      });
      const name = naming.recorded ?? naming.book.allocate(page.file_name);
      const bytes = Buffer.byteLength(page.markdown);
      const reason =
        limits.maxFileBytes !== undefined && bytes > limits.maxFileBytes
          ? CAP_REASONS.max_file_bytes
          : budget.files <= 0
            ? CAP_REASONS.max_files
            : bytes > budget.bytes
              ? CAP_REASONS.max_topic_bytes
              : null;
      if (reason) {
        out.skipped.push({ path: name, reason, source: src.url, bytes });
        throw capError(`${src.url}: the page (${bytes} bytes as markdown) is over the topic's caps (${reason})`, { reason, bytes });
      }
      await mkdir(destDir, { recursive: true });
      await writeFile(join(destDir, name), page.markdown, { flag: 'wx' });
      if (page.final_url !== src.url) out.source.final_url = page.final_url;
      out.files.push({ ...(await recordFor(destDir, name, src.url, page.fetched_at, undefined, page.hidden_text)), role: 'docs' });
    }
    out.ok = true;
  } catch (err) {
    const e = asTkomaError(err);
    // A policy refusal is the operator's rule, not a flaky source: it stops the whole fetch.
    if (e.code === 'NOT_ALLOWED') throw e;
    out.error = { code: e.code, message: e.message };
  }
  budget.files -= out.files.length;
  budget.bytes -= out.files.reduce((n, f) => n + f.bytes, 0);
  return out;
}

/**
 * Fetches every source in order (git clones are CPU and disk heavy; two cores gain little),
 * sharing one budget: the caps hold for the topic, not per source. With `packsDir`, each git
 * source leaves a pack of its kept files' blobs in a folder of its own there (see adoptPacks).
 */
export async function fetchSources(sources: SourceRequest[], destDir: string, progress: Progress, limits: FetchLimits = {}, packsDir?: string): Promise<FetchedSource[]> {
  const prefixes = sourcePrefixes(sources);
  const budget = budgetFor(limits);
  const naming = { book: new NameBook() };
  const results: FetchedSource[] = [];
  for (let i = 0; i < sources.length; i++) {
    const src = sources[i];
    const label = src.type === 'git' ? `Fetch ${repoDisplayName(src.url)}` : src.type === 'npm' ? `Fetch ${src.package}@${src.version ?? 'latest'}` : `Fetch ${src.url}`;
    const res = await progress.task(label, (update) => fetchOneSource(src, prefixes[i], destDir, limits, update, budget, naming, packsDir && join(packsDir, String(i))));
    if (!res.ok) progress.warn(`${src.url}: ${res.error?.message}`);
    results.push(res);
  }
  return results;
}

/** The records of `.tkoma-skipped.jsonl` for what the fetches left out. */
export function skippedRecords(skipped: readonly SkippedFile[]): SkippedRecord[] {
  return skipped.map((s) => ({ path: s.path, reason: s.reason, source: s.source ?? '', ...(s.bytes !== undefined ? { bytes: s.bytes } : {}), ...(s.url ? { url: s.url } : {}) }));
}
