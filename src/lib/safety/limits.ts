/**
 * Caps on what one topic may hold: files, bytes per file, bytes in all. Defaults, then
 * `[limits]` in tkoma-ref.toml, then the request's `limits` field; the fetch enforces them in
 * path order and says what it left out, the approval step says what it would leave out.
 * Pure.
 */
import { TkomaError } from '../errors.js';

export interface Limits {
  max_files: number;
  max_file_bytes: number;
  max_topic_bytes: number;
}

export type LimitsOverride = Partial<Limits>;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  max_files: 20_000,
  max_file_bytes: 1024 * 1024,
  max_topic_bytes: 512 * 1024 * 1024,
});

/** What any configuration or request may ask for: beyond this a topic is no longer a reference. */
export const HARD_LIMITS: Readonly<Limits> = Object.freeze({
  max_files: 1_000_000,
  max_file_bytes: 256 * 1024 * 1024,
  max_topic_bytes: 64 * 1024 * 1024 * 1024,
});

export const LIMIT_KEYS = ['max_files', 'max_file_bytes', 'max_topic_bytes'] as const;

/** Skip reasons the caps produce (next to the content rules' binary, lockfile, …). */
export const CAP_REASONS = { max_files: 'max_files', max_file_bytes: 'too_large', max_topic_bytes: 'max_topic_bytes' } as const;

/**
 * Validates a `limits` object from a request or from `[limits]` in the config. Unknown keys and
 * values that are not whole numbers from 1 to the hard limit are refused with INVALID_INPUT.
 */
export function parseLimits(raw: unknown, field = 'limits'): LimitsOverride | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new TkomaError('INVALID_INPUT', `\`${field}\` must be an object with max_files, max_file_bytes and/or max_topic_bytes`, { field });
  }
  const out: LimitsOverride = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(key)) {
      throw new TkomaError('INVALID_INPUT', `\`${field}.${key}\` is not a limit (known: ${LIMIT_KEYS.join(', ')})`, { field: `${field}.${key}`, allowed: LIMIT_KEYS });
    }
    const k = key as keyof Limits;
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > HARD_LIMITS[k]) {
      throw new TkomaError('INVALID_INPUT', `\`${field}.${key}\` must be a whole number from 1 to ${HARD_LIMITS[k]}`, { field: `${field}.${key}`, value });
    }
    out[k] = n;
  }
  return out;
}

/** Defaults, overridden by the config's `[limits]`, overridden by the request. */
export function effectiveLimits(...layers: (LimitsOverride | undefined)[]): Limits {
  const out: Limits = { ...DEFAULT_LIMITS };
  for (const layer of layers) {
    if (!layer) continue;
    for (const k of LIMIT_KEYS) if (layer[k] !== undefined) out[k] = layer[k]!;
  }
  return out;
}

/** Room left in a topic while its sources are fetched one after another. */
export interface Budget {
  files: number;
  bytes: number;
}

export interface CapPlan<T> {
  kept: T[];
  /** Items the caps leave out, each with its reason (too_large, max_files, max_topic_bytes). */
  skipped: { item: T; reason: string }[];
  /** Budget left after the kept items. */
  left: Budget;
}

/**
 * Applies the caps to files in the order given (callers pass path order, so the result is the
 * same on every run): a file above max_file_bytes is skipped on its own; once the file count or
 * the byte budget is used up, every later file is skipped. Unknown sizes (null) count as 0 bytes.
 */
export function planCaps<T>(items: readonly T[], bytesOf: (t: T) => number | null, limits: Pick<Limits, 'max_file_bytes'>, budget: Budget): CapPlan<T> {
  const kept: T[] = [];
  const skipped: CapPlan<T>['skipped'] = [];
  let files = budget.files;
  let bytes = budget.bytes;
  let stopped: string | null = null;
  for (const item of items) {
    const size = bytesOf(item) ?? 0;
    if (stopped) skipped.push({ item, reason: stopped });
    else if (size > limits.max_file_bytes) skipped.push({ item, reason: CAP_REASONS.max_file_bytes });
    else if (files <= 0) {
      stopped = CAP_REASONS.max_files;
      skipped.push({ item, reason: stopped });
    } else if (size > bytes) {
      stopped = CAP_REASONS.max_topic_bytes;
      skipped.push({ item, reason: stopped });
    } else {
      kept.push(item);
      files -= 1;
      bytes -= size;
    }
  }
  return { kept, skipped, left: { files, bytes } };
}

/** Counts by reason. */
export function countByReason(skipped: readonly { reason: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of skipped) out[s.reason] = (out[s.reason] ?? 0) + 1;
  return out;
}
