/**
 * The `crawl` option of a web source (issue 28): its names are a contract shared by `--input`,
 * flags, MCP, docs and tests. Pure validation; `{}` or `true` means the defaults.
 *
 *   {"type": "web", "url": START, "crawl": {"scope": "prefix" | "host", "include": [globs],
 *    "exclude": [globs], "max_pages": N, "max_depth": N}}
 */
import { TkomaError } from '../../errors.js';

export type CrawlScope = 'prefix' | 'host';

export interface CrawlOptions {
  /** `prefix`: the start URL's folder on its host; `host`: the whole host. */
  scope: CrawlScope;
  /** Globs over the URL path (`/learn/0.6/**`): a page must match one when any are given. */
  include?: string[];
  /** Globs over the URL path: a page matching one is left out (listed as `excluded`). */
  exclude?: string[];
  max_pages: number;
  /** Link hops from the start page (pages named by llms.txt or a sitemap are at depth 1). */
  max_depth: number;
}

export const CRAWL_DEFAULTS = { scope: 'prefix', max_pages: 200, max_depth: 5 } as const;
/** The hard cap on max_pages when tkoma-ref.toml sets none (`[crawl] max_pages_cap`). */
export const DEFAULT_MAX_PAGES_CAP = 1000;
export const MAX_PAGES_CAP_SETTING = '[crawl] max_pages_cap';
const MAX_DEPTH_CAP = 50;
const MAX_GLOBS = 50;
const MAX_GLOB_CHARS = 300;

const invalid = (message: string): TkomaError => new TkomaError('INVALID_INPUT', message, { field: 'sources' });

function globs(v: unknown, where: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((g) => typeof g === 'string' && g.trim() !== '' && g.length <= MAX_GLOB_CHARS)) {
    throw invalid(`${where} must be an array of non-empty glob strings (at most ${MAX_GLOB_CHARS} characters each)`);
  }
  if (v.length > MAX_GLOBS) throw invalid(`${where} lists more than ${MAX_GLOBS} globs`);
  return v.length > 0 ? (v as string[]).map((g) => g.trim()) : undefined;
}

function count(v: unknown, where: string, fallback: number, cap: number, setting?: string): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw invalid(`${where} must be a whole number of at least 1, got ${JSON.stringify(v)}`);
  if (v > cap) {
    throw new TkomaError('INVALID_INPUT', `${where} is ${v}, over the cap of ${cap}${setting ? ` (raise \`${setting}\` in tkoma-ref.toml)` : ''}`, {
      field: 'sources',
      cap,
      ...(setting ? { setting } : {}),
    });
  }
  return v;
}

/**
 * The crawl options of `sources[index]`, or undefined for a single page (absent, `false`).
 * `maxPagesCap` is the root's hard cap (tkoma-ref.toml `[crawl] max_pages_cap`).
 */
export function parseCrawl(raw: unknown, index: number, maxPagesCap = DEFAULT_MAX_PAGES_CAP): CrawlOptions | undefined {
  const where = `sources[${index}].crawl`;
  if (raw === undefined || raw === null || raw === false) return undefined;
  const obj: Record<string, unknown> = raw === true ? {} : typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : (() => {
    throw invalid(`${where} must be an object (or true for the defaults)`);
  })();
  const known = new Set(['scope', 'include', 'exclude', 'max_pages', 'max_depth']);
  const unknown = Object.keys(obj).filter((k) => !known.has(k));
  if (unknown.length > 0) throw invalid(`${where} has unknown field(s) ${unknown.join(', ')}: use ${[...known].join(', ')}`);
  const scope = obj.scope ?? CRAWL_DEFAULTS.scope;
  if (scope !== 'prefix' && scope !== 'host') throw invalid(`${where}.scope must be "prefix" or "host", got ${JSON.stringify(scope)}`);
  const include = globs(obj.include, `${where}.include`);
  const exclude = globs(obj.exclude, `${where}.exclude`);
  return {
    scope,
    ...(include ? { include } : {}),
    ...(exclude ? { exclude } : {}),
    max_pages: count(obj.max_pages, `${where}.max_pages`, Math.min(CRAWL_DEFAULTS.max_pages, maxPagesCap), maxPagesCap, MAX_PAGES_CAP_SETTING),
    max_depth: count(obj.max_depth, `${where}.max_depth`, CRAWL_DEFAULTS.max_depth, MAX_DEPTH_CAP),
  };
}
