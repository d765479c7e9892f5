/**
 * JSON POST for the HTTP embedding providers (Ollama, OpenAI-compatible). Every failure becomes
 * an EMBEDDER_UNAVAILABLE TkomaError whose message says which server, what happened and, when the
 * server said why, its words. Credentials never appear in messages or details.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { TkomaError } from '../errors.js';

export interface PostOptions {
  provider: string;
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  /** Per attempt. */
  timeoutMs: number;
  /** Extra attempts for 429 and 5xx answers (overloaded or restarting servers). */
  retries: number;
  /** First back-off delay; doubles each retry; a Retry-After header wins (capped). */
  retryBaseMs: number;
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const MAX_RETRY_DELAY_MS = 10_000;

/** The URL without user:password, for messages. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** What the server said, from the error shapes Ollama and OpenAI use, else the raw text (capped). */
export function serverMessage(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && 'error' in parsed) {
      const err = (parsed as { error: unknown }).error;
      if (typeof err === 'string') return err;
      if (err && typeof err === 'object' && 'message' in err) {
        const msg = (err as { message: unknown }).message;
        if (typeof msg === 'string') return msg;
      }
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  const trimmed = text.trim();
  return trimmed.length > 300 ? `${trimmed.slice(0, 300)}…` : trimmed;
}

function networkReason(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code) return cause.code;
    if (cause?.message) return cause.message;
    return err.message;
  }
  return String(err);
}


export async function postJson(opts: PostOptions): Promise<unknown> {
  const where = displayUrl(opts.url);
  const details = { provider: opts.provider, url: where };
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...opts.headers },
        body: JSON.stringify(opts.body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
        throw new TkomaError(
          'EMBEDDER_UNAVAILABLE',
          `${opts.provider} server at ${where} did not answer within ${Math.round(opts.timeoutMs / 1000)} s`,
          { ...details, reason: 'timeout' },
        );
      }
      throw new TkomaError(
        'EMBEDDER_UNAVAILABLE',
        `${opts.provider} server at ${where} is unreachable (${networkReason(err)})`,
        { ...details, reason: networkReason(err) },
      );
    }

    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw new TkomaError(
        'EMBEDDER_UNAVAILABLE',
        `${opts.provider} server at ${where} broke off its answer (${networkReason(err)})`,
        { ...details, status: response.status },
      );
    }

    if (!response.ok) {
      if (RETRYABLE.has(response.status) && attempt < opts.retries) {
        const retryAfter = Number(response.headers.get('retry-after'));
        const delay = Number.isFinite(retryAfter) && retryAfter > 0
          ? retryAfter * 1000
          : opts.retryBaseMs * 2 ** attempt;
        await sleep(Math.min(delay, MAX_RETRY_DELAY_MS));
        continue;
      }
      const said = serverMessage(text);
      throw new TkomaError(
        'EMBEDDER_UNAVAILABLE',
        `${opts.provider} server at ${where} answered HTTP ${response.status}${said ? `: ${said}` : ''}`,
        { ...details, status: response.status },
      );
    }

    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new TkomaError(
        'EMBEDDER_UNAVAILABLE',
        `${opts.provider} server at ${where} answered with something that is not JSON`,
        { ...details, status: response.status },
      );
    }
  }
}

/** Checks that `value` is an array of equal-length finite number arrays; returns it typed. */
export function asVectorList(value: unknown, expected: number, provider: string, where: string): number[][] {
  const bad = (why: string) =>
    new TkomaError('EMBEDDER_UNAVAILABLE', `${provider} server at ${where} sent a malformed answer: ${why}`, {
      provider,
      url: where,
    });
  if (!Array.isArray(value)) throw bad('no list of embeddings');
  if (value.length !== expected) throw bad(`${value.length} embeddings for ${expected} inputs`);
  for (const v of value) {
    if (!Array.isArray(v) || v.length === 0) throw bad('an embedding is not a non-empty list of numbers');
    if (v.length !== (value[0] as unknown[]).length) throw bad('embeddings of different lengths');
    for (const x of v) if (typeof x !== 'number' || !Number.isFinite(x)) throw bad('a non-numeric value');
  }
  return value as number[][];
}
