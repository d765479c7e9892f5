/**
 * `tkoma-ref.toml` at the knowledge root: tracked settings. The embedder that built the index is
 * recorded here so every later query (and `index rebuild`) uses the same vector space, even on
 * another machine that clones the root.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { TkomaError } from '../errors.js';
import { ALLOW_SETTING, parseAllowList, type SourcePolicy } from '../net/policy.js';
import { type LimitsOverride, parseLimits } from '../safety/limits.js';
import { DEFAULT_MAX_PAGES_CAP } from '../sources/crawl/options.js';
import { LOCAL_ROOTS_SETTING, parseLocalRoots } from '../sources/local-roots.js';
import { parseToml, smolToml } from './toml.js';

export const CONFIG_FILE = 'tkoma-ref.toml';

export interface RootConfig {
  embedding: {
    /** What the user asked for: auto | transformers | use-lite | ollama | openai | none. */
    provider: string;
    model?: string;
    url?: string;
    /** What actually built the index: `${provider}:${model}:${dimension}`, or "none". */
    recorded?: string;
    /** Chunk vectors: "auto" (by model: off for use-lite), "on" or "off". Topic notes always get vectors. */
    chunks?: string;
  };
  watch: {
    /** Full reconciliation interval of `tkoma-ref watch`, in seconds. */
    reconcile_seconds: number;
  };
  /**
   * `[limits]`: caps on what one topic may hold (max_files, max_file_bytes, max_topic_bytes).
   * Only the keys the file sets; src/lib/safety/limits.ts has the defaults.
   */
  limits?: LimitsOverride;
  /** `[network] allow`: non-public hosts, host:ports or subnets fetches may reach (src/lib/net/policy.ts). */
  network?: { allow: string[] };
  /** `[sources] local_roots`: folders whose git repositories may be sources (file://). */
  sources?: { local_roots: string[] };
  /** `[approval] mode`: `operator` (the default) or `token` (src/lib/approval.ts). */
  approval?: { mode: string };
  /** `[crawl] max_pages_cap`: the most pages one crawl may ask for (sources/crawl/options.ts has the default). */
  crawl?: { max_pages_cap: number };
}

/** Above this a cap is a typo: `[limits] max_files` bounds a topic at 20,000 files by default anyway. */
const MAX_PAGES_CAP_LIMIT = 100_000;

export const APPROVAL_MODES = ['operator', 'token'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** The root's network policy and local roots, checked. */
export function policyOf(config: RootConfig): SourcePolicy {
  return { allow: parseAllowList(config.network?.allow, ALLOW_SETTING), localRoots: parseLocalRoots(config.sources?.local_roots, LOCAL_ROOTS_SETTING) };
}

/** The most pages one crawl of this root may ask for: `[crawl] max_pages_cap`, else 1,000. */
export async function maxPagesCapOf(root: string): Promise<number> {
  return (await readConfig(root)).crawl?.max_pages_cap ?? DEFAULT_MAX_PAGES_CAP;
}

export const DEFAULT_CONFIG: RootConfig = {
  embedding: { provider: 'auto' },
  watch: { reconcile_seconds: 300 },
};

export async function readConfig(root: string): Promise<RootConfig> {
  const file = join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return structuredClone(DEFAULT_CONFIG);
  }
  let data: Record<string, unknown>;
  try {
    data = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    const line = (err as { line?: number }).line ?? 1;
    throw new TkomaError('MALFORMED_TOPIC', `${CONFIG_FILE}:${line}: invalid TOML: ${String((err as Error).message).split('\n')[0]}`, {
      file: CONFIG_FILE,
      line,
    });
  }
  const emb = (data.embedding ?? {}) as Record<string, unknown>;
  const watch = (data.watch ?? {}) as Record<string, unknown>;
  let limits: LimitsOverride | undefined;
  try {
    limits = parseLimits(data.limits, 'limits');
  } catch (err) {
    // Point at the file and line, like any other hand-broken setting.
    const line = Math.max(1, text.split('\n').findIndex((l) => /^\s*\[\s*limits\s*\]/.test(l)) + 1);
    throw new TkomaError('MALFORMED_TOPIC', `${CONFIG_FILE}:${line}: ${(err as Error).message}`, { file: CONFIG_FILE, line });
  }
  const lineOf = (table: string) => Math.max(1, text.split('\n').findIndex((l) => new RegExp(`^\\s*\\[\\s*${table}\\s*\\]`).test(l)) + 1);
  const misplaced = (table: string, message: string) => new TkomaError('MALFORMED_TOPIC', `${CONFIG_FILE}:${lineOf(table)}: ${message}`, { file: CONFIG_FILE, line: lineOf(table) });
  const network = (data.network ?? {}) as Record<string, unknown>;
  const sources = (data.sources ?? {}) as Record<string, unknown>;
  const approval = (data.approval ?? {}) as Record<string, unknown>;
  const crawl = (data.crawl ?? {}) as Record<string, unknown>;
  const policy: Pick<RootConfig, 'network' | 'sources'> = {};
  try {
    if (network.allow !== undefined) policy.network = { allow: parseAllowList(network.allow).map((e) => e.text) };
  } catch (err) {
    throw misplaced('network', (err as Error).message);
  }
  try {
    if (sources.local_roots !== undefined) {
      parseLocalRoots(sources.local_roots);
      policy.sources = { local_roots: (sources.local_roots as string[]).map((p) => p.trim()) };
    }
  } catch (err) {
    throw misplaced('sources', (err as Error).message);
  }
  if (approval.mode !== undefined && !APPROVAL_MODES.includes(approval.mode as ApprovalMode)) {
    throw misplaced('approval', `[approval] mode must be "operator" or "token" (got ${JSON.stringify(approval.mode)})`);
  }
  const cap = crawl.max_pages_cap;
  if (cap !== undefined && (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap < 1 || cap > MAX_PAGES_CAP_LIMIT)) {
    throw misplaced('crawl', `[crawl] max_pages_cap must be a whole number from 1 to ${MAX_PAGES_CAP_LIMIT} (got ${JSON.stringify(cap)})`);
  }
  return {
    embedding: {
      provider: typeof emb.provider === 'string' ? emb.provider : 'auto',
      ...(typeof emb.model === 'string' ? { model: emb.model } : {}),
      ...(typeof emb.url === 'string' ? { url: emb.url } : {}),
      ...(typeof emb.recorded === 'string' ? { recorded: emb.recorded } : {}),
      ...(typeof emb.chunks === 'string' ? { chunks: emb.chunks } : {}),
    },
    watch: {
      reconcile_seconds:
        typeof watch.reconcile_seconds === 'number' && watch.reconcile_seconds > 0 ? watch.reconcile_seconds : DEFAULT_CONFIG.watch.reconcile_seconds,
    },
    ...(limits && Object.keys(limits).length > 0 ? { limits } : {}),
    ...policy,
    ...(typeof approval.mode === 'string' ? { approval: { mode: approval.mode } } : {}),
    ...(typeof cap === 'number' ? { crawl: { max_pages_cap: cap } } : {}),
  };
}

export async function writeConfig(root: string, config: RootConfig): Promise<void> {
  const header = '# tkoma-ref knowledge root settings (tracked). See `tkoma-ref --help`.\n\n';
  await writeFile(join(root, CONFIG_FILE), header + smolToml().stringify(config) + '\n');
}
