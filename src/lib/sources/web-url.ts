/**
 * Web source URLs: what we accept (validateWebUrl) and the file name a page is stored under
 * (urlSlug). Both pure.
 */
import { createHash } from 'node:crypto';
import { TkomaError } from '../errors.js';

/** A web page's download cap by default; here, not in web.ts, so create can name it without loading the HTML stack. */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

const MAX_URL_LENGTH = 4096;
const MAX_SLUG_LENGTH = 100;

/**
 * Accept only http(s) URLs with a host. Refuses other schemes (file:, data:, javascript:, ext::),
 * option-looking strings, embedded credentials (they would land in topic.md and git history)
 * and whitespace or control characters (header/argument smuggling, copy-paste accidents).
 */
export function validateWebUrl(url: string): URL {
  if (typeof url !== 'string' || url === '') {
    throw new TkomaError('INVALID_URL', 'A web source needs a URL.', { url });
  }
  if (url.startsWith('-')) {
    throw new TkomaError('INVALID_URL', `Not a URL (looks like an option): ${url}`, { url });
  }
  if (url.length > MAX_URL_LENGTH) {
    throw new TkomaError('INVALID_URL', `URL longer than ${MAX_URL_LENGTH} characters.`, { url: url.slice(0, 200) });
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') {
    throw new TkomaError('UNSUPPORTED_SCHEME', `Web sources must be http or https, not ${scheme}:`, { url, scheme });
  }
  if (/[\s\u0000-\u001f\u007f-\u009f]/u.test(url)) {
    throw new TkomaError('INVALID_URL', 'URL contains whitespace or control characters.', { url });
  }
  if (scheme === undefined) {
    throw new TkomaError('INVALID_URL', `URL must start with http:// or https://: ${url}`, { url });
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TkomaError('INVALID_URL', `Not a valid URL: ${url}`, { url });
  }
  if (parsed.hostname === '') {
    throw new TkomaError('INVALID_URL', `URL has no host: ${url}`, { url });
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TkomaError('INVALID_URL', 'URLs with credentials are not accepted (they would be stored in the topic).', {
      url: `${parsed.protocol}//${parsed.host}${parsed.pathname}`,
    });
  }
  return parsed;
}

/**
 * Loopback, private, link-local and unspecified addresses, by name or literal IP (names are not
 * resolved). Cloud metadata endpoints (169.254.169.254, fd00:ec2::254) fall in here too.
 */
export function isPrivateHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '0.0.0.0' || h === '::' || h === '::1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h)?.[1];
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(mapped ?? h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(h)) return true; // mapped IPv4 in hex form: refuse rather than decode
  return /^(?:fc|fd)[0-9a-f]{0,2}:/.test(h) || /^fe[89ab][0-9a-f]?:/.test(h);
}

/**
 * Why a redirect from `from` to `to` must not be followed, or null. A page on a public host may
 * not send us to the machine itself or its private network (the page is the open internet; the
 * operator approved that URL, not whatever it points to); a page that already is private may.
 */
export function redirectProblem(from: URL, to: URL): string | null {
  if (!isPrivateHost(from.hostname) && isPrivateHost(to.hostname)) return `a public page may not redirect to a private or local address (${to.host})`;
  return null;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** Lower-case, [a-z0-9._-] only, no '..', starting and ending with a letter or digit. */
function clean(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/[^a-z0-9]+$/, '');
}

/**
 * File-name slug for a page URL, without extension: host and path joined by '-', e.g.
 * `https://dioxuslabs.com/learn/0.6/guide/` → `dioxuslabs.com-learn-0.6-guide`. A query string
 * (or a non-ASCII path, which cleaning would blur) adds a short hash so distinct pages keep
 * distinct names; long slugs are cut to 100 characters and end with a hash of the whole URL.
 * Deterministic and total: any string gives a valid name.
 */
export function urlSlug(url: string): string {
  let host = '';
  let path = url;
  let query = '';
  try {
    const parsed = new URL(url);
    if (parsed.host !== '') {
      host = parsed.host;
      path = parsed.pathname;
      query = parsed.search.length > 1 ? parsed.search : '';
    }
  } catch {
    // not a URL: slug the raw text, still deterministically
  }
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // malformed %-escapes: keep them as written
  }
  // The stored file is .md whatever the page was served as.
  decoded = decoded.replace(/\.(?:html?|md|markdown)$/i, '');

  const suffixes: string[] = [];
  if (query) suffixes.push(shortHash(query));
  if (/[^\x00-\x7f]/.test(decoded)) suffixes.push(shortHash(decoded));

  let slug = clean(host ? `${host}/${decoded}` : decoded) || 'page';
  if (suffixes.length > 0) slug = `${slug}-${suffixes.join('-')}`;
  if (slug.length > MAX_SLUG_LENGTH) {
    const head = slug.slice(0, MAX_SLUG_LENGTH - 9).replace(/[^a-z0-9]+$/, '');
    slug = `${head}-${shortHash(url)}`;
  }
  return slug;
}
