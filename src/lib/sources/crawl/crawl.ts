/**
 * A careful crawl of a documentation site from one URL (issue 28).
 *
 * Discovery first, from the small files a site publishes about itself: robots.txt (obeyed, and
 * its Sitemap lines), llms.txt, sitemap.xml and sitemap indexes. Approval's phase 1 stops there:
 * it never requests a page. The crawl then fetches the start page, the pages discovery named, and
 * the in-scope links of every fetched page, breadth first up to max_depth, never more than
 * max_pages kept. Each page goes through fetchWebPage (the same redirects checks, deadline, byte
 * and element caps as a single page). One page failing (403, 404, a timeout, a redirect out of
 * scope) is listed and the crawl goes on.
 *
 * Manners: at most two requests at a time on the site, one when robots.txt asks for a
 * Crawl-delay, which is then kept between request starts (up to MAX_CRAWL_DELAY_S).
 */
import { TkomaError } from '../../errors.js';
import type { SourcePolicy } from '../../net/policy.js';
import { fetchSmallText, fetchWebPage, type WebPage } from '../web.js';
import { parseLlmsTxt, parseRobots, parseSitemap, type RobotsRules } from './discovery.js';
import type { CrawlOptions } from './options.js';
import { judgeUrl, type Scope, scopeFor } from './urls.js';

export const MAX_CRAWL_DELAY_S = 30;
const CONCURRENCY = 2;
const MAX_SITEMAP_FILES = 20;
const MAX_SITEMAP_BYTES = 10 * 1024 * 1024;
const MAX_SMALL_BYTES = 1024 * 1024;
/** Requests for pages stop here even when failures kept the count of kept pages low. */
const ATTEMPTS_PER_PAGE = 2;

export interface PageLimits {
  timeoutMs?: number;
  maxBytes?: number;
  maxStoredBytes?: number;
  /** The root's network policy: every request of the crawl, discovery included, obeys it. */
  policy?: SourcePolicy;
}

export interface Discovery {
  start: string;
  scope: Scope;
  robots: RobotsRules;
  /** Which of robots.txt, llms.txt and sitemaps the site has (what phase 1 read). */
  found: { robots_txt: boolean; llms_txt: string | null; sitemaps: string[] };
  /** In-scope page URLs named by llms.txt and sitemaps, by key, in the order found. */
  pages: Map<string, string>;
  /** Pages discovery named that robots.txt forbids, or that are not pages of the crawl, by reason. */
  left_out: Record<string, number>;
  /** The in-scope ones of those (robots, query, include/exclude), listed. */
  left_out_urls: { url: string; reason: string }[];
}

/** One page of the crawl, as stored. */
export interface CrawledPage {
  key: string;
  /** The URL requested. */
  url: string;
  final_url: string;
  depth: number;
  /** `fetched`: a new body; `not_modified`: a 304 to a conditional request, the stored copy stands. */
  status: 'fetched' | 'not_modified';
  page?: WebPage;
  etag?: string;
  last_modified?: string;
}

/** A page left out, and why (`http_403`, `timeout`, `robots`, `redirect_out_of_scope`, `max_pages`, …). */
export interface CrawlSkip {
  url: string;
  reason: string;
  status?: number;
  error?: string;
}

export interface CrawlResult {
  discovery: Discovery;
  pages: CrawledPage[];
  skipped: CrawlSkip[];
  /** Links seen and not followed because they lead off the scope (counted, not listed). */
  out_of_scope_links: number;
}

/** What a refresh knows of a page stored before: its validators, for a conditional request. */
export interface KnownPage {
  etag?: string;
  last_modified?: string;
}

export interface CrawlRun {
  limits?: PageLimits;
  /** Keys of pages stored before (refresh): asked with If-None-Match / If-Modified-Since. */
  known?: ReadonlyMap<string, KnownPage>;
  onPage?: (done: number, url: string) => void;
  /**
   * The links of a page stored before (read from its stored markdown): a 304 carries no body, and
   * pages reached only through an unchanged page must still be found.
   */
  storedLinks?: (key: string) => Promise<string[]>;
}

/** Link targets of stored markdown (`[text](https://…)`), absolute as the conversion wrote them. */
export function markdownLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\((https?:\/\/[^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

async function smallText(url: string, policy: SourcePolicy | undefined, maxBytes = MAX_SMALL_BYTES): Promise<string | null> {
  try {
    const r = await fetchSmallText(url, { maxBytes, ...(policy ? { policy } : {}) });
    return r.text;
  } catch {
    return null; // a site without it, or one that fails to serve it: discovery goes on without
  }
}

/**
 * Phase 1 of a crawl: robots.txt, llms.txt and sitemaps only, never a page. Their requests go
 * through the same checks as pages (fetchSmallText).
 */
export async function discoverSite(startUrl: string, opts: CrawlOptions, net: { policy?: SourcePolicy } = {}): Promise<Discovery> {
  const start = new URL(startUrl);
  const scope = scopeFor(start, opts);
  const robotsUrl = new URL('/robots.txt', start).href;
  const robotsText = await smallText(robotsUrl, net.policy);
  const robots = parseRobots(robotsUrl, robotsText);
  const pages = new Map<string, string>();
  const leftOut: Record<string, number> = {};
  const leftOutUrls: { url: string; reason: string }[] = [];
  const offer = (raw: string) => {
    const v = judgeUrl(raw, scope);
    const reason = !v.ok ? v.reason : robots.allowed(v.url) ? null : 'robots';
    if (reason) {
      leftOut[reason] = (leftOut[reason] ?? 0) + 1;
      if (reason !== 'out_of_scope' && reason !== 'not_http' && reason !== 'not_a_page') leftOutUrls.push({ url: v.url, reason });
    } else if (v.ok && !pages.has(v.key)) {
      pages.set(v.key, v.url);
    }
  };

  // llms.txt in the crawl's folder first (a docs site under /docs/ may have its own), then the host's.
  let llms: string | null = null;
  for (const candidate of [...new Set([new URL(`${scope.prefix}llms.txt`, start).href, new URL('/llms.txt', start).href])]) {
    if (!robots.allowed(candidate)) continue;
    const text = await smallText(candidate, net.policy);
    if (text !== null && /\]\(/.test(text)) {
      llms = candidate;
      for (const u of parseLlmsTxt(text, candidate)) offer(u);
      break;
    }
  }

  // Sitemaps named by robots.txt, else the usual places; indexes followed, a bounded number of files.
  const queue = robots.sitemaps.length > 0 ? [...robots.sitemaps] : [...new Set([new URL('/sitemap.xml', start).href, new URL(`${scope.prefix}sitemap.xml`, start).href])];
  const seen = new Set<string>();
  const sitemaps: string[] = [];
  while (queue.length > 0 && seen.size < MAX_SITEMAP_FILES) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    let parsedOrigin: string;
    try {
      parsedOrigin = new URL(url).origin;
    } catch {
      continue;
    }
    if (parsedOrigin !== start.origin || !robots.allowed(url)) continue; // another host's sitemap is not this site's
    const xml = await smallText(url, net.policy, MAX_SITEMAP_BYTES);
    if (xml === null || !/<(?:urlset|sitemapindex)[\s>]/i.test(xml)) continue;
    sitemaps.push(url);
    const map = parseSitemap(xml, url);
    if (map.kind === 'index') queue.push(...map.urls);
    else for (const u of map.urls) offer(u);
  }

  return {
    start: start.href,
    scope,
    robots,
    found: { robots_txt: robotsText !== null, llms_txt: llms, sitemaps },
    pages,
    left_out: leftOut,
    left_out_urls: leftOutUrls,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The reason a page fetch failed, for the list of skipped pages. */
function failure(err: unknown): { reason: string; status?: number; error: string } {
  const e = err instanceof TkomaError ? err : new TkomaError('FETCH_FAILED', String(err));
  const status = typeof e.details.status === 'number' ? e.details.status : undefined;
  if (status !== undefined) return { reason: `http_${status}`, status, error: e.message };
  if (e.details.timeout_ms !== undefined) return { reason: 'timeout', error: e.message };
  if (e.code === 'EMPTY_FETCH') return { reason: 'empty', error: e.message };
  const why = typeof e.details.reason === 'string' ? e.details.reason : e.code.toLowerCase();
  return { reason: why, error: e.message };
}

/** Crawls the site: discovery, then pages breadth first within the bound. */
export async function crawlSite(startUrl: string, opts: CrawlOptions, run: CrawlRun = {}): Promise<CrawlResult> {
  const discovery = await discoverSite(startUrl, opts, { policy: run.limits?.policy });
  const { scope, robots } = discovery;
  const delayMs = Math.min(robots.crawlDelay ?? 0, MAX_CRAWL_DELAY_S) * 1000;
  const concurrency = delayMs > 0 ? 1 : CONCURRENCY;

  const pages: CrawledPage[] = [];
  const skipped: CrawlSkip[] = [];
  let outOfScope = 0;
  /** Keys queued or done: one request per page, whatever spellings of it turn up. */
  const claimed = new Set<string>();
  /** Keys of pages kept, including the keys of their final URLs and canonical URLs. */
  const kept = new Set<string>();
  const queue: { key: string; url: string; depth: number }[] = [];
  const listed = new Set<string>();
  let attempts = 0;
  let lastStart = 0;

  const enqueue = (raw: string, depth: number, base?: string) => {
    const v = judgeUrl(raw, scope, base);
    if (!v.ok) {
      if (v.reason === 'out_of_scope' || v.reason === 'not_http' || v.reason === 'not_a_page') outOfScope++;
      else if (!listed.has(v.url)) {
        // In scope but left out by rule (a query string, include/exclude): listed once.
        listed.add(v.url);
        skipped.push({ url: v.url, reason: v.reason });
      }
      return;
    }
    if (claimed.has(v.key)) return;
    claimed.add(v.key);
    if (!robots.allowed(v.url)) {
      skipped.push({ url: v.url, reason: 'robots' });
      return;
    }
    if (depth > opts.max_depth) {
      skipped.push({ url: v.url, reason: 'max_depth' });
      return;
    }
    queue.push({ key: v.key, url: v.url, depth });
  };

  enqueue(startUrl, 0);
  for (const url of discovery.pages.values()) enqueue(url, 1);
  // A refresh asks again for every page it stored, linked or not: a 404 or 410 is how it learns a page is gone.
  for (const key of run.known?.keys() ?? []) enqueue(key, 1);
  for (const left of discovery.left_out_urls) {
    if (listed.has(left.url)) continue;
    listed.add(left.url);
    skipped.push(left);
  }

  const fetchOne = async (item: { key: string; url: string; depth: number }): Promise<void> => {
    if (delayMs > 0) {
      const wait = lastStart + delayMs - Date.now();
      if (wait > 0) await sleep(wait);
    }
    lastStart = Date.now();
    const known = run.known?.get(item.key);
    let got: Awaited<ReturnType<typeof fetchWebPage>>;
    try {
      got = await fetchWebPage(item.url, {
        ...run.limits,
        links: true,
        mayFollow: (next) => {
          const v = judgeUrl(next, scope);
          return v.ok && robots.allowed(v.url);
        },
        ...(known?.etag ? { ifNoneMatch: known.etag } : {}),
        ...(known?.last_modified ? { ifModifiedSince: known.last_modified } : {}),
      });
    } catch (err) {
      skipped.push({ url: item.url, ...failure(err) });
      return;
    }
    const finalVerdict = judgeUrl(got.final_url, scope);
    if (!finalVerdict.ok) {
      skipped.push({ url: item.url, reason: `redirect_${finalVerdict.reason}`, error: `redirected to ${got.final_url}` });
      return;
    }
    if (finalVerdict.key !== item.key && (kept.has(finalVerdict.key) || claimed.has(finalVerdict.key))) {
      skipped.push({ url: item.url, reason: 'duplicate', error: `redirected to ${got.final_url}, a page of the crawl already` });
      return;
    }
    claimed.add(finalVerdict.key);
    // Redirected within the scope to a page not seen yet: the page is the one it landed on.
    const key = 'not_modified' in got ? item.key : finalVerdict.key;
    if ('not_modified' in got) {
      kept.add(item.key);
      pages.push({ key: item.key, url: item.url, final_url: got.final_url, depth: item.depth, status: 'not_modified', ...(got.etag ? { etag: got.etag } : {}), ...(got.last_modified ? { last_modified: got.last_modified } : {}) });
      if (item.depth < opts.max_depth && run.storedLinks) for (const link of await run.storedLinks(item.key)) enqueue(link, item.depth + 1, got.final_url);
      return;
    }
    const canonical = got.canonical ? judgeUrl(got.canonical, scope) : undefined;
    if (canonical?.ok && canonical.key !== key && canonical.key !== item.key) {
      if (kept.has(canonical.key)) {
        skipped.push({ url: item.url, reason: 'duplicate', error: `its canonical URL ${canonical.url} is a page of the crawl already` });
        return;
      }
      claimed.add(canonical.key);
    }
    if (kept.size >= opts.max_pages) {
      skipped.push({ url: item.url, reason: 'max_pages' });
      return;
    }
    kept.add(item.key).add(finalVerdict.key);
    if (canonical?.ok) kept.add(canonical.key);
    const { links, ...page } = got;
    pages.push({ key, url: item.url, final_url: got.final_url, depth: item.depth, status: 'fetched', page, ...(got.etag ? { etag: got.etag } : {}), ...(got.last_modified ? { last_modified: got.last_modified } : {}) });
    run.onPage?.(pages.length, item.url);
    if (item.depth < opts.max_depth) for (const link of links ?? []) enqueue(link, item.depth + 1, got.final_url);
  };

  // Breadth first: the queue is in depth order, as pages of depth d enqueue pages of depth d + 1.
  const active = new Set<Promise<void>>();
  while (queue.length > 0 || active.size > 0) {
    while (queue.length > 0 && active.size < concurrency) {
      const item = queue.shift()!;
      if (kept.size >= opts.max_pages || attempts >= opts.max_pages * ATTEMPTS_PER_PAGE) {
        skipped.push({ url: item.url, reason: 'max_pages' });
        continue;
      }
      attempts++;
      const p: Promise<void> = fetchOne(item).finally(() => active.delete(p));
      active.add(p);
    }
    if (active.size > 0) await Promise.race(active);
  }
  pages.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { discovery, pages, skipped, out_of_scope_links: outOfScope };
}
