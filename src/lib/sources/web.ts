/**
 * Web sources: one page per source, fetched over http(s) and stored as markdown.
 *
 * Every connection, redirects included, obeys the root's network policy (src/lib/net/http.ts);
 * redirects are followed by hand so every hop is re-validated (a page may not bounce us to
 * file:// or another scheme); one deadline covers connect, redirects and body; the body is
 * streamed and cut off at a byte cap, so a huge or endless response cannot exhaust memory.
 */
import { TkomaError } from '../errors.js';
import { policedRequest } from '../net/http.js';
import { DEFAULT_POLICY, type Resolver, type SourcePolicy } from '../net/policy.js';
import { envSetting } from '../settings.js';
import { redactUrl } from './git-url.js';
import { bodyToMarkdown, classifyBody, decodeBody, parseContentType } from './web-content.js';
import { DEFAULT_MAX_BYTES, redirectProblem, urlSlug, validateWebUrl } from './web-url.js';

export { urlSlug, validateWebUrl } from './web-url.js';

export interface WebPage {
  url: string; // as requested
  final_url: string; // after redirects
  /** Every URL a redirect led to, in order (empty when the page answered itself). */
  redirects: string[];
  content_type: string;
  file_name: string; // urlSlug(requested url) + '.md': refreshes keep the name even if redirects change
  markdown: string;
  title?: string;
  bytes: number; // body bytes received
  fetched_at: string; // ISO 8601
  /** Texts the page hid from people (display:none, aria-hidden, white on white…), for the injection checks. */
  hidden_text?: string[];
  /** The validators the server sent, for a conditional request next time. */
  etag?: string;
  last_modified?: string;
  /** With `links`: every link target in the HTML (absolute), and its `<link rel="canonical">`. */
  links?: string[];
  canonical?: string;
}

/** A conditional GET answered 304 Not Modified: the page stored before is still the page. */
export interface NotModified {
  not_modified: true;
  url: string;
  final_url: string;
  etag?: string;
  last_modified?: string;
}

export interface FetchWebOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /**
   * The largest page that will be kept (the topic's max_file_bytes): an HTML page whose text alone
   * is larger is refused before the (slow, memory-hungry) HTML → markdown conversion.
   */
  maxStoredBytes?: number;
  userAgent?: string;
  /** Conditional request: the validators of the copy stored before (a 304 then gives NotModified). */
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  /** Also return the page's link targets and canonical URL (the crawl follows them). */
  links?: boolean;
  /** A crawl's scope: a redirect to a URL it refuses is not followed. */
  mayFollow?: (url: string) => boolean;
  /** The root's network policy (default: public addresses only). */
  policy?: SourcePolicy;
  /** Name resolution, for tests; the system's by default. */
  resolver?: Resolver;
}

/** More elements than any documentation page has: conversion would take minutes and gigabytes. */
export const MAX_HTML_ELEMENTS = 60_000;

/**
 * Share of U+FFFD (undecodable bytes) and control characters above which a body is not text: binary
 * data served as text/html without NUL bytes would otherwise be stored as pages of garbage.
 */
export const MAX_NON_TEXT_RATIO = 0.05;

/** Refuses bodies that decode to garbage (FETCH_FAILED, with the share found). Pure. */
export function assertText(text: string, url: string): void {
  const sample = text.length > 262_144 ? text.slice(0, 262_144) : text;
  if (sample.length === 0) return;
   
  const bad = sample.match(/[\ufffd\u0000-\u0008\u000b\u000e-\u001a\u001c-\u001f\u007f]/g)?.length ?? 0;
  if (bad / sample.length > MAX_NON_TEXT_RATIO) {
    const pct = Math.round((bad / sample.length) * 100);
    throw new TkomaError('FETCH_FAILED', `${url} is not a text document: ${pct}% of it is undecodable bytes or control characters.`, {
      url,
      reason: 'not_text',
    });
  }
}

/**
 * Cheap checks before converting HTML (a regex pass, no DOM): too many elements, or more text than
 * the topic keeps per file, is refused at once (FETCH_FAILED, reason too_many_elements / too_large).
 * Measured on a 2.3 MB page of 100,000 headings: the conversion took 492 s and 605 MB on a loaded
 * machine before the result was refused as too large; this check answers in milliseconds.
 */
export function assertConvertible(html: string, url: string, maxStoredBytes?: number): void {
  let elements = 0;
  const tag = /<[a-zA-Z]/g;
  while (tag.exec(html) !== null) {
    if (++elements > MAX_HTML_ELEMENTS) {
      throw new TkomaError('FETCH_FAILED', `${url} has more than ${MAX_HTML_ELEMENTS.toLocaleString('en-US')} HTML elements: too large to convert to one page.`, {
        url,
        reason: 'too_many_elements',
      });
    }
  }
  if (maxStoredBytes !== undefined && html.length > maxStoredBytes) {
    const textBytes = Buffer.byteLength(html.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '').replace(/<[^>]*>/g, ''));
    if (textBytes > maxStoredBytes) {
      throw new TkomaError('FETCH_FAILED', `${url} holds ${textBytes.toLocaleString('en-US')} bytes of text, more than max_file_bytes (${maxStoredBytes.toLocaleString('en-US')}).`, {
        url,
        reason: 'too_large',
      });
    }
  }
}

export const DEFAULT_TIMEOUT_MS = 20_000;
const SMALL_TEXT_TIMEOUT_MS = 10_000;

/** A page's deadline: TKOMA_REF_WEB_TIMEOUT (seconds) when set, for slow networks (and tests that wait out a page that never answers). */
function pageTimeoutMs(): number {
  const s = envSetting('webTimeout');
  return s !== undefined && s > 0 ? Math.round(s * 1000) : DEFAULT_TIMEOUT_MS;
}
const DEFAULT_USER_AGENT = 'tkoma-ref/0.1 (reference fetcher)';
const ACCEPT = 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5';

/**
 * The rules a redirect's target must pass besides the network policy: still a web source URL, a
 * public page may not send us inward, and (a crawl) within `mayFollow`'s scope, else the request
 * ends there (reason `redirect_out_of_scope`), the target unrequested.
 */
function hopRules(mayFollow?: (url: string) => boolean): (from: URL, to: URL) => void {
  return (from, to) => {
    validateWebUrl(to.href);
    const problem = redirectProblem(from, to);
    if (problem) throw new TkomaError('INVALID_URL', problem, { url: redactUrl(to.href) });
    if (mayFollow && !mayFollow(to.href)) {
      throw new TkomaError('FETCH_FAILED', `${redactUrl(from.href)} redirected out of the crawl's scope, to ${redactUrl(to.href)}.`, {
        url: redactUrl(from.href),
        redirect_to: redactUrl(to.href),
        reason: 'redirect_out_of_scope',
      });
    }
  };
}

/** The policy options of a request. */
function policed(opts: { policy?: SourcePolicy; resolver?: Resolver }, mayFollow?: (url: string) => boolean) {
  return { policy: opts.policy ?? DEFAULT_POLICY, ...(opts.resolver ? { resolver: opts.resolver } : {}), checkHop: hopRules(mayFollow) };
}

/** Network-level failures (refused, DNS, reset, TLS) and our own deadline as SOURCE_UNREACHABLE. */
function networkError(err: unknown, url: string, timedOut: boolean, timeoutMs: number): TkomaError {
  if (err instanceof TkomaError) return err;
  if (timedOut) {
    return new TkomaError('SOURCE_UNREACHABLE', `${url} did not answer within ${timeoutMs} ms.`, {
      url,
      timeout_ms: timeoutMs,
    });
  }
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code ?? (err as { code?: string } | undefined)?.code;
  const detail = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new TkomaError('SOURCE_UNREACHABLE', `Cannot reach ${url}: ${detail}`, {
    url,
    ...(code ? { cause: code } : {}),
  });
}

/** Read a body stream up to maxBytes; past that, cancel it and fail. */
async function readCapped(response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  const tooLarge = () =>
    new TkomaError('FETCH_FAILED', `${url} is larger than ${maxBytes} bytes.`, { url, max_bytes: maxBytes });
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** One request's time limit: aborts `signal` after `ms`, and remembers that it did (a timeout, not a network error). */
function startDeadline(ms: number): { signal: AbortSignal; passed(): boolean; clear(): void } {
  const controller = new AbortController();
  let passed = false;
  const timer = setTimeout(() => {
    passed = true;
    controller.abort();
  }, ms);
  return { signal: controller.signal, passed: () => passed, clear: () => clearTimeout(timer) };
}

/**
 * Fetch one page and convert it to the markdown stored in a topic.
 * Errors: INVALID_URL / UNSUPPORTED_SCHEME (bad URL), SOURCE_UNREACHABLE (network, timeout),
 * FETCH_FAILED (HTTP error, bad redirect, too large, binary content), EMPTY_FETCH (nothing readable).
 */
export function fetchWebPage(url: string, opts?: FetchWebOptions & { ifNoneMatch?: undefined; ifModifiedSince?: undefined }): Promise<WebPage>;
export function fetchWebPage(url: string, opts: FetchWebOptions): Promise<WebPage | NotModified>;
export async function fetchWebPage(url: string, opts: FetchWebOptions = {}): Promise<WebPage | NotModified> {
  const requested = validateWebUrl(url);
  const timeoutMs = opts.timeoutMs ?? pageTimeoutMs();
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const deadline = startDeadline(timeoutMs);
  try {
    const headers: Record<string, string> = { 'user-agent': opts.userAgent ?? DEFAULT_USER_AGENT, accept: ACCEPT };
    if (opts.ifNoneMatch) headers['if-none-match'] = opts.ifNoneMatch;
    if (opts.ifModifiedSince) headers['if-modified-since'] = opts.ifModifiedSince;
    const { response, finalUrl, redirects } = await policedRequest(requested, { method: 'GET', signal: deadline.signal, headers }, policed(opts, opts.mayFollow));
    const final = finalUrl.href;
    const validators = {
      ...(response.headers.get('etag') ? { etag: response.headers.get('etag')! } : {}),
      ...(response.headers.get('last-modified') ? { last_modified: response.headers.get('last-modified')! } : {}),
    };
    if (response.status === 304 && (opts.ifNoneMatch || opts.ifModifiedSince)) {
      await response.body?.cancel().catch(() => undefined);
      return { not_modified: true, url: requested.href, final_url: final, etag: validators.etag ?? opts.ifNoneMatch, last_modified: validators.last_modified ?? opts.ifModifiedSince };
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new TkomaError('FETCH_FAILED', `${final} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`, {
        url: requested.href,
        final_url: final,
        status: response.status,
      });
    }
    const rawType = response.headers.get('content-type') ?? '';
    const ct = parseContentType(rawType);
    const refuseBinary = () =>
      new TkomaError('FETCH_FAILED', `${final} is not a text document (${ct.mime || 'binary content'}).`, {
        url: requested.href,
        final_url: final,
        content_type: rawType,
      });
    // Refuse declared binary types before downloading anything.
    if (classifyBody(ct, final) === 'binary') {
      await response.body?.cancel().catch(() => undefined);
      throw refuseBinary();
    }
    const bytes = await readCapped(response, maxBytes, final);
    const kind = classifyBody(ct, final, bytes);
    if (kind === 'binary') throw refuseBinary();
    const text = decodeBody(bytes, ct, kind, final);
    assertText(text, final);
    if (kind === 'html') assertConvertible(text, final, opts.maxStoredBytes);
    const stored = bodyToMarkdown(text, kind, ct, final, opts.links === true);
    const page: WebPage = {
      url: requested.href,
      final_url: final,
      redirects,
      content_type: rawType || (kind === 'html' ? 'text/html' : 'text/plain'),
      file_name: `${urlSlug(requested.href)}.md`,
      markdown: stored.markdown,
      bytes: bytes.byteLength,
      fetched_at: new Date().toISOString(),
    };
    if (stored.title !== undefined) page.title = stored.title;
    if (stored.hidden && stored.hidden.length > 0) page.hidden_text = stored.hidden;
    if (stored.links) page.links = stored.links;
    if (stored.canonical) page.canonical = stored.canonical;
    return Object.assign(page, validators);
  } catch (err) {
    throw networkError(err, requested.href, deadline.passed(), timeoutMs);
  } finally {
    deadline.clear();
  }
}

export interface SmallText {
  status: number;
  final_url: string;
  /** The body as UTF-8 text, null unless the answer was 200 with a textual body. */
  text: string | null;
}

/**
 * GET a small file a site publishes about itself (robots.txt, llms.txt, a sitemap): every
 * redirect re-validated as for pages, one deadline, a byte cap. Never throws for HTTP answers
 * (a 404 is an answer); network failures and a body over the cap do throw.
 */
export async function fetchSmallText(
  url: string,
  opts: { timeoutMs?: number; maxBytes?: number; userAgent?: string; policy?: SourcePolicy; resolver?: Resolver } = {},
): Promise<SmallText> {
  const requested = validateWebUrl(url);
  const timeoutMs = opts.timeoutMs ?? SMALL_TEXT_TIMEOUT_MS;
  const deadline = startDeadline(timeoutMs);
  try {
    const { response, finalUrl } = await policedRequest(
      requested,
      {
        method: 'GET',
        signal: deadline.signal,
        headers: { 'user-agent': opts.userAgent ?? DEFAULT_USER_AGENT, accept: 'text/plain,text/markdown,application/xml,text/xml;q=0.9,*/*;q=0.5' },
      },
      policed(opts),
    );
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      return { status: response.status, final_url: finalUrl.href, text: null };
    }
    const bytes = await readCapped(response, opts.maxBytes ?? DEFAULT_MAX_BYTES, finalUrl.href);
    const text = looksBinaryText(bytes) ? null : new TextDecoder('utf-8').decode(bytes);
    return { status: response.status, final_url: finalUrl.href, text };
  } catch (err) {
    throw networkError(err, requested.href, deadline.passed(), timeoutMs);
  } finally {
    deadline.clear();
  }
}

/** A NUL byte in the first 8 KiB: a compressed or binary file where text was expected. */
function looksBinaryText(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}
