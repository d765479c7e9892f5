/**
 * Which URLs of a documentation site are pages of the crawl, one URL per page, and the file each
 * page is stored in. Pure.
 *
 * One page, one key: the fragment goes; `/a`, `/a/`, `/a/index.html`, `/a.html`, `/a.md` are one page; tracking
 * parameters (`utm_*`, `gclid`, `fbclid`, `ref`) go. Any other query string makes a different
 * document on most sites (search results, sorted listings, calendars: the endless kind), so such
 * URLs are left out and listed (`query`), never followed.
 */
import { minimatch } from 'minimatch';

import type { CrawlOptions } from './options.js';

const TRACKING = /^(?:utm_[a-z_]+|gclid|fbclid|msclkid|mc_[a-z]+|ref|ref_src|_ga)$/i;
/** Links to these are files, not pages: never requested. */
const NOT_PAGES = /\.(?:png|jpe?g|gif|svg|webp|ico|bmp|avif|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|dmg|exe|msi|deb|rpm|apk|mp3|mp4|webm|ogg|wav|mov|avi|woff2?|ttf|otf|eot|css|js|mjs|map|wasm|json|xml|rss|atom)$/i;

export type UrlVerdict =
  | { ok: true; key: string; url: string }
  | { ok: false; reason: 'not_http' | 'out_of_scope' | 'query' | 'not_a_page' | 'excluded' | 'not_included'; url: string };

export interface Scope {
  origin: string;
  /** Path prefix every page's path starts with (`/` for scope `host`). */
  prefix: string;
  include?: string[];
  exclude?: string[];
}

/** The folder of the start URL a `prefix` crawl stays in: `/learn/0.6/` for `/learn/0.6/` or `/learn/0.6/index.html`. */
export function scopeFor(start: URL, opts: Pick<CrawlOptions, 'scope' | 'include' | 'exclude'>): Scope {
  let prefix = '/';
  if (opts.scope === 'prefix') {
    const path = start.pathname;
    if (path.endsWith('/')) prefix = path;
    else {
      const last = path.slice(path.lastIndexOf('/') + 1);
      // `/guide/intro.html` crawls `/guide/`; `/learn/0.6` is a folder named without its slash.
      prefix = /\.(?:html?|md|php|aspx?)$/i.test(last) ? path.slice(0, path.lastIndexOf('/') + 1) : `${path}/`;
    }
  }
  return { origin: start.origin, prefix, ...(opts.include ? { include: opts.include } : {}), ...(opts.exclude ? { exclude: opts.exclude } : {}) };
}

/**
 * The path every spelling of one page shares: no trailing slash, no `index.html`, no `.html` or
 * `.md` (llms.txt often names a page's markdown twin, `/guide/state.md`, of `/guide/state`).
 */
function pagePath(pathname: string): string {
  let p = pathname.replace(/\/index\.(?:html?|md)$/i, '/').replace(/(.)\.(?:html?|md)$/i, '$1');
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p === '' ? '/' : p;
}

/**
 * The crawl's verdict on a URL found on the site (a link, a sitemap entry, a redirect target):
 * its page key and the URL to request, or why it is left out.
 */
export function judgeUrl(raw: string, scope: Scope, base?: string): UrlVerdict {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return { ok: false, reason: 'not_http', url: raw };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, reason: 'not_http', url: raw };
  u.hash = '';
  u.username = '';
  u.password = '';
  for (const name of [...u.searchParams.keys()]) if (TRACKING.test(name)) u.searchParams.delete(name);
  if (u.search === '?') u.search = '';
  const url = u.href;
  if (u.origin !== scope.origin) return { ok: false, reason: 'out_of_scope', url };
  const path = pagePath(u.pathname);
  const prefixPage = pagePath(scope.prefix);
  // The prefix folder itself (`/learn/0.6` for `/learn/0.6/`) is in scope too.
  if (!(path === prefixPage || `${path}/`.startsWith(scope.prefix))) return { ok: false, reason: 'out_of_scope', url };
  if (NOT_PAGES.test(path)) return { ok: false, reason: 'not_a_page', url };
  if (u.search !== '') return { ok: false, reason: 'query', url };
  if (scope.exclude?.some((g) => minimatch(path, g, { dot: true }))) return { ok: false, reason: 'excluded', url };
  if (scope.include && !scope.include.some((g) => minimatch(path, g, { dot: true }))) return { ok: false, reason: 'not_included', url };
  return { ok: true, key: `${u.origin}${path}`, url };
}

const MAX_SEGMENT = 80;

/** One path segment as a file or folder name: decoded, no separators or odd characters, bounded. */
function safeSegment(seg: string): string {
  let s: string;
  try {
    s = decodeURIComponent(seg);
  } catch {
    s = seg;
  }
  s = s.normalize('NFC').replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^[.-]+|-+$/g, '');
  if (s.length > MAX_SEGMENT) s = s.slice(0, MAX_SEGMENT);
  return s === '' ? '_' : s;
}

/** The site's folder: its host, and port when not the default (`127.0.0.1-8080`). */
export function siteFolder(origin: string): string {
  const u = new URL(origin);
  return safeSegment(u.port ? `${u.hostname}-${u.port}` : u.hostname);
}

/**
 * The stored file of a page: `<site>/<path>.md` from its key (`dioxuslabs.com/learn/0.6/guide/state.md`;
 * the site's root page is `<site>/index.md`; `.html` dropped). Collisions (two keys that give
 * one name, or names that differ by case only) are the caller's to settle (NameBook).
 */
export function pageFileName(key: string): string {
  const u = new URL(key);
  const segments = u.pathname.split('/').filter((s) => s !== '');
  if (segments.length === 0) return `${siteFolder(u.origin)}/index.md`;
  const last = segments.length - 1;
  segments[last] = segments[last]!.replace(/\.(?:html?|md|markdown|txt)$/i, '');
  return [siteFolder(u.origin), ...segments.map(safeSegment)].join('/') + '.md';
}
