/**
 * The caps and the network policy a fetch runs under (defaults, `[limits]` in tkoma-ref.toml, the
 * request's `limits`), what the policy refuses before any request, and what phase 1 can say about
 * the caps' effect before the files are fetched.
 */
import { type Budget, DEFAULT_LIMITS, effectiveLimits, type Limits, type LimitsOverride } from '../safety/limits.js';
import { gitUrlScheme, redactUrl } from '../sources/git-url.js';
import { assertLocalRepositoryAllowed } from '../sources/local-roots.js';
import { literalRefusal, notAllowed, portOf, type SourcePolicy } from '../net/policy.js';
import { DEFAULT_MAX_BYTES as DEFAULT_WEB_MAX_BYTES } from '../sources/web-url.js';
import { policyOf, readConfig } from '../store/config.js';
import type { SourceRequest } from './request.js';
import { formatBytes, mergeCounts } from './summary.js';

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
