/**
 * Flag values and parse errors in words a person can act on. Pure: no oclif import, so the
 * messages can be tested alone and the fast path can share them.
 */

import { formatCount } from '../lib/topics/summary.js';

/** The allowed range of a whole-number flag, as a phrase: "from 1 to 200", "≥ 1", "". */
export function rangePhrase(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return '';
}

/** Parses a whole-number flag value, or throws an Error whose message names the flag and the reason. */
export function parseWholeNumber(flag: string, input: string, min?: number, max?: number): number {
  const text = input.trim();
  const n = /^-?\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || (min !== undefined && n < min) || (max !== undefined && n > max)) {
    throw new Error(`--${flag} must be a whole number${rangePhrase(min, max)} (got '${input}')`);
  }
  return n;
}

/**
 * One line from an oclif parse error. oclif wraps a flag's own parse failure as
 * "Parsing --limit \n\t<reason>\nSee more help with --help"; others are its own sentences.
 * `flagNames` (without dashes) lets an unknown flag be answered with the closest known one.
 */
export function explainParseError(message: string, flagNames: readonly string[] = [], suggest?: (word: string, names: readonly string[]) => string[]): string {
  const lines = message.split('\n').map((l) => l.replace(/^\s+/, '')).filter((l) => l && !/^See more help with --help$/.test(l));
  const first = lines[0] ?? message;
  const parsing = /^Parsing (--[\w-]+)\s*$/.exec(first);
  if (parsing) {
    const reason = lines[1] ?? '';
    const int = /^Expected an integer(?: (greater|less) than or equal to (-?\d+))? but received: (.*)$/.exec(reason);
    if (int) return `${parsing[1]} must be a whole number${int[1] ? ` ${int[1] === 'greater' ? '≥' : '≤'} ${int[2]}` : ''} (got '${int[3]}')`;
    return reason || `${parsing[1]} has a bad value`;
  }
  const option = /^Expected --([\w-]+)=(.*) to be one of: (.*)$/.exec(first);
  if (option) return `--${option[1]} must be one of ${option[3]} (got '${option[2]}')`;
  const missing = /^Missing (\d+) required args?/.exec(first);
  if (missing) {
    const names = lines.slice(1).map((l) => l.split(/\s{2,}/)[0]!.trim().toUpperCase()).filter(Boolean);
    return names.length ? `missing ${names.join(', ')}: see --help` : 'a required argument is missing: see --help';
  }
  const unknown = /^Nonexistent flags?: (.*)$/.exec(first);
  if (unknown) {
    const given = unknown[1]!.split(/,\s*/);
    const hints = given
      .map((g) => {
        const near = suggest ? suggest(g.replace(/^-+/, '').split('=')[0]!, flagNames) : [];
        return near.length ? `did you mean --${near[0]}?` : '';
      })
      .filter(Boolean);
    return `unknown flag${given.length === 1 ? '' : 's'} ${given.join(', ')}${hints.length ? `: ${hints.join(' ')}` : ''} (see --help)`;
  }
  const unexpected = /^Unexpected arguments?: (.*)$/.exec(first);
  if (unexpected) return `unexpected argument${unexpected[1]!.includes(',') ? 's' : ''} ${unexpected[1]} (see --help; quote a phrase with spaces)`;
  if (/^The following errors? occurred:/.test(first)) return lines.slice(1).join('; ').replace(/\s+/g, ' ');
  return first.trim();
}

/**
 * What an oclif parse error is about, in `--input`'s terms: the JSON field the flag sets (`--max-age`
 * → `max_age`), and for a choice flag the allowed values, so a flag error and the same mistake in
 * `--input` answer alike (INVALID_ENUM with `field` and `allowed`, or INVALID_INPUT with `field`).
 */
export function parseErrorFields(message: string): { code: 'INVALID_INPUT' | 'INVALID_ENUM'; field?: string; allowed?: string[] } {
  const first = message.split('\n').map((l) => l.trim()).find(Boolean) ?? '';
  const field = (flag: string): string => flag.replace(/^-+/, '').replace(/-/g, '_');
  const option = /^Expected --([\w-]+)=(.*) to be one of: (.*)$/.exec(first);
  if (option) return { code: 'INVALID_ENUM', field: field(option[1]!), allowed: option[3]!.split(/,\s*/) };
  const parsing = /^Parsing (--[\w-]+)\s*$/.exec(first);
  if (parsing) return { code: 'INVALID_INPUT', field: field(parsing[1]!) };
  return { code: 'INVALID_INPUT' };
}

/** "1 file", "2 files", "1,413 chunks". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
