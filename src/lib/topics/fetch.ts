/**
 * Fetches a topic's sources into a folder, producing the tracked per-file records. Used by
 * create (into a staging folder) and refresh. One failing source is a warning; the caller decides
 * whether everything failing is an error. The caps and policy it runs under: fetch-limits.ts;
 * how it names files: naming.ts; each file's record: file-records.ts.
 */
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { appendAll } from '../append.js';
import type { ChunksAhead } from '../chunking/ahead.js';
import { asTkomaError, TkomaError } from '../errors.js';
import type { Progress } from '../progress.js';
import { type Budget, CAP_REASONS } from '../safety/limits.js';
import { fetchGitSource, type LsRemoteListing } from '../sources/git.js';
import { resolveVersionTag } from '../sources/git-version.js';
import { fetchNpmSource, type NpmResolved, npmSourceFields } from '../sources/npm/npm.js';
import type { CrawlOptions } from '../sources/crawl/options.js';
import { isFullCommitSha, repoDisplayName } from '../sources/git-url.js';
import type { TopicSource } from '../store/model.js';
import { type FileRecord, isReservedName } from '../store/topic-files.js';
import type { SkippedRecord } from '../store/skipped.js';
import { budgetFor, type FetchLimits } from './fetch-limits.js';
import { type ContentFacts, factsOf, recordFor } from './file-records.js';
import { NameBook, type Naming, sourcePrefixes } from './naming.js';
import type { SourceRequest } from './request.js';

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


/** topic.md and the manifest, compared case-folded (store/topic-files.ts: shared with phase 1). */
const isReserved = isReservedName;

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
  /**
   * A create's: `packInto`, a folder for a pack of the kept blobs (fetchGitSource); `ahead`, where
   * each kept file's text goes to be cut while the rest is fetched (chunking/ahead.ts).
   */
  into: { packInto?: string | undefined; ahead?: ChunksAhead | undefined } = {},
  /**
   * What a refresh's up-to-date check just read, so the fetch does not ask again: `npm`, the
   * version the registry resolved; `listing`, a git remote's ls-remote answer for this url and ref.
   */
  checked: { npm?: NpmResolved; listing?: LsRemoteListing } = {},
): Promise<FetchedSource> {
  const fetchedAt = new Date().toISOString();
  const out: FetchedSource = { source: { ...src }, ok: false, files: [], skipped: [] };
  const { packInto, ahead } = into;
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
      const inTopic = (path: string): string => (prefix ? `${prefix}/${path}` : path);
      const res = await fetchGitSource(spec, target, {
        maxFileBytes: limits.maxFileBytes,
        maxFiles: budget.files,
        maxTotalBytes: budget.bytes,
        keepExisting: true,
        ...(limits.policy ? { policy: limits.policy } : {}),
        onFile: (path, data) => {
          const f = factsOf(data);
          facts.set(path, f);
          ahead?.offer(inTopic(path), data, f.sha256);
        },
        ...(ahead ? { onTree: (paths: string[]) => ahead.expect(paths.map(inTopic)) } : {}),
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
        onFile: (path, data) => {
          const f = factsOf(data);
          facts.set(path, f);
          ahead?.offer(`${prefix}/${path}`, data, f.sha256);
        },
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
export async function fetchSources(
  sources: SourceRequest[],
  destDir: string,
  progress: Progress,
  limits: FetchLimits = {},
  { packsDir, ahead }: { packsDir?: string; ahead?: ChunksAhead } = {},
): Promise<FetchedSource[]> {
  const prefixes = sourcePrefixes(sources);
  const budget = budgetFor(limits);
  const naming = { book: new NameBook() };
  const results: FetchedSource[] = [];
  for (let i = 0; i < sources.length; i++) {
    const src = sources[i];
    const label = src.type === 'git' ? `Fetch ${repoDisplayName(src.url)}` : src.type === 'npm' ? `Fetch ${src.package}@${src.version ?? 'latest'}` : `Fetch ${src.url}`;
    const res = await progress.task(label, (update) => fetchOneSource(src, prefixes[i], destDir, limits, update, budget, naming, { packInto: packsDir && join(packsDir, String(i)), ahead }));
    if (!res.ok) progress.warn(`${src.url}: ${res.error?.message}`);
    results.push(res);
  }
  return results;
}

/** The records of `.tkoma-skipped.jsonl` for what the fetches left out. */
export function skippedRecords(skipped: readonly SkippedFile[]): SkippedRecord[] {
  return skipped.map((s) => ({ path: s.path, reason: s.reason, source: s.source ?? '', ...(s.bytes !== undefined ? { bytes: s.bytes } : {}), ...(s.url ? { url: s.url } : {}) }));
}
