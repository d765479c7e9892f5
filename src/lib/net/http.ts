/**
 * HTTP(S) requests under the network policy (./policy.ts): every connection resolves its host
 * through `policedLookup`, so the socket goes to an address that was checked, and IP literals
 * (which skip the lookup) are checked before connecting. Redirects are followed by hand, each hop
 * checked the same way (a hop is a new connection) and recorded.
 *
 * Built on node:http/https rather than the global fetch: fetch (undici) offers no `lookup` hook
 * without the separate undici package's Agent. The answer is still a WHATWG `Response`, so
 * callers stream and cancel bodies as with fetch.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

import { TkomaError } from '../errors.js';
import { redactUrl } from '../sources/git-url.js';
import { notAllowed, policedLookup, portOf, type Resolver, refusal, type SourcePolicy } from './policy.js';

export interface PolicedInit {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface PolicedOptions {
  policy: SourcePolicy;
  /** Name resolution (tests inject one); the system's by default. */
  resolver?: Resolver;
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

/** The body as sent, decompressed when the server compressed it anyway (we ask for none). */
function bodyOf(res: IncomingMessage): Readable {
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : null;
  if (!decoder) return res;
  res.on('error', (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

/** One request (no redirect following) to an address the policy allows. */
export function policedFetch(url: URL, init: PolicedInit, opts: PolicedOptions): Promise<Response> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new TkomaError('UNSUPPORTED_SCHEME', `only http and https can be fetched, not ${url.protocol}`, { url: redactUrl(url.href) }));
  }
  const shown = redactUrl(url.href);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = portOf(url);
  if (isIP(host) !== 0) {
    const why = refusal(opts.policy, host, port, host);
    if (why) return Promise.reject(notAllowed(shown, why));
  }
  let refused: TkomaError | undefined;
  const lookup = policedLookup(opts.policy, port, shown, { resolver: opts.resolver, onRefused: (e) => (refused = e) });
  const method = init.method ?? 'GET';
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        protocol: url.protocol,
        hostname: host,
        port,
        path: `${url.pathname}${url.search}`,
        method,
        headers: { ...init.headers },
        // A fresh connection per request: every one goes through the policed lookup.
        agent: false,
        lookup: lookup as never,
        ...(init.signal ? { signal: init.signal } : {}),
        ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const nullBody = method === 'HEAD' || NULL_BODY.has(status);
        if (nullBody) res.resume();
        const body = nullBody ? null : (Readable.toWeb(bodyOf(res)) as ReadableStream<Uint8Array>);
        try {
          resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: headersOf(res) }));
        } catch (err) {
          res.destroy();
          reject(new TkomaError('FETCH_FAILED', `${shown} answered with status ${status}, which is not HTTP`, { url: shown, status, reason: String(err) }));
        }
      },
    );
    req.on('error', (err) => reject(refused ?? err));
    req.end();
  });
}

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
export const MAX_REDIRECTS = 5;

export interface Followed {
  response: Response;
  finalUrl: URL;
  /** Every URL redirected to, in order (credentials removed). */
  redirects: string[];
}

export interface FollowOptions extends PolicedOptions {
  maxRedirects?: number;
  /**
   * Extra rules for a redirect's target, beyond the policy (e.g. a web source's URL rules):
   * throw to refuse it. The thrown error's message is kept as the reason.
   */
  checkHop?: (from: URL, to: URL) => void;
}

/**
 * GET or HEAD `start` under the policy, following up to `maxRedirects` redirects: each target is
 * parsed, passed to `checkHop`, and connected to under the policy like the first. The body of
 * the final answer is the caller's to read or cancel.
 */
export async function policedRequest(start: URL, init: PolicedInit, opts: FollowOptions): Promise<Followed> {
  const maxRedirects = opts.maxRedirects ?? MAX_REDIRECTS;
  const redirects: string[] = [];
  let current = start;
  for (let hop = 0; ; hop++) {
    const response = await policedFetch(current, init, opts);
    if (!REDIRECT_STATUSES.has(response.status)) return { response, finalUrl: current, redirects };
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    const from = redactUrl(current.href);
    if (!location) throw new TkomaError('FETCH_FAILED', `${from} answered ${response.status} without a Location.`, { url: from, status: response.status });
    if (hop >= maxRedirects) {
      throw new TkomaError('FETCH_FAILED', `More than ${maxRedirects} redirects from ${redactUrl(start.href)}.`, { url: redactUrl(start.href), last_url: from, redirects });
    }
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new TkomaError('FETCH_FAILED', `${from} redirected to something that is not a URL: ${redactUrl(location)}`, { url: from, redirect_to: redactUrl(location) });
    }
    try {
      opts.checkHop?.(current, next);
    } catch (err) {
      // A refusal the caller spelled out itself (e.g. a crawl's scope) keeps its own words.
      if (err instanceof TkomaError && err.code === 'FETCH_FAILED') throw err;
      const reason = err instanceof Error ? err.message : String(err);
      throw new TkomaError('FETCH_FAILED', `${from} redirected to a URL that is not allowed: ${redactUrl(next.href)}`, {
        url: from,
        redirect_to: redactUrl(next.href),
        reason: redactUrl(reason),
      });
    }
    redirects.push(redactUrl(next.href));
    // 303, and 301/302 after a POST in browsers, turn into GET; we only ever send GET/HEAD.
    current = next;
  }
}
