/**
 * What approving a topic will cost: how many chunks, how long until it is searchable, and how long
 * its vectors take in the background. The one estimator every surface shows (phase 1 of `topic
 * create`, `--dry-run`, the MCP answer and elicitation, `tkoma-ref approvals`). Pure: the caller
 * passes the files phase 1 would keep and the rates measured on this machine (rates.ts).
 *
 * Chunks come from each file's size and kind, as the chunker cuts them: bytes per chunk measured
 * by running src/lib/chunking over 1,927 real files (minisearch, qs, express, zod, web-tree-sitter,
 * Dioxus; `npm run bench:estimates` prints what the index cut). Small files give one chunk, files
 * above the index's size cap none.
 */
import { isProsePath, isTestPath, languageForPath } from '../chunking/paths.js';
import { MAX_INDEXED_BYTES } from '../index/scan.js';

/**
 * Bytes per chunk, measured on the files' full length: prose cut by headings ~780; code by syntax,
 * per grammar (TypeScript 690, Rust 775, JavaScript 950, C 810, C++ 570; others 750), test code
 * three quarters of that (a chunk per test block: TypeScript 535, Rust 559, JavaScript 639);
 * everything else (JSON, YAML, HTML…) by 60-line windows, ~1,300.
 */
export const BYTES_PER_CHUNK = {
  prose: 780,
  code: 750,
  other: 1300,
  byLanguage: { typescript: 690, tsx: 690, javascript: 950, rust: 775, c: 810, cpp: 570 } as Record<string, number>,
  testCode: 0.75,
} as const;

/** A file's last piece is a partial chunk: half a chunk on average (files of 0.5-2 KB give ~2). */
const LAST_PIECE = 0.5;

/** Mean chunks per file when a file's size is unknown before the fetch (same corpus). */
export const CHUNKS_PER_FILE = { prose: 7, code: 13, other: 7, page: 8, package_file: 7 } as const;

/** Rates the time estimate uses: measured on this machine (rates.ts), or defaults before any create. */
export interface Rates {
  /** A command's start before its create begins (process, parsing, the approval gate). */
  start_s: number;
  /** Fixed cost of a create's fetch + commit, and files fetched, written and committed per second. */
  fetch_base_s: number;
  files_per_s: number;
  /** Fixed cost of the index phase (grammars, segment writes), and chunks cut and indexed per second. */
  index_base_s: number;
  chunks_per_s: number;
  /** Background embedding, chunks per second, by space key or provider; absent: unknown (a remote server). */
  embed_chunks_per_s: Record<string, number>;
  /** Creates the rates were measured from (0: the defaults). */
  creates: number;
}

/**
 * Before the first create: `npm run bench:estimates` here (2 shared cores, load 6-10) gave a
 * command start of ~1 s; fetch + commit ~1.5 s plus 185-440 files/s (Dioxus, 1,418 files: 4.7-9.2 s);
 * index ~1 s plus 1,600-2,400 chunks/s (Dioxus, 10,898 chunks: 4.5-6.9 s), the lower ends taken.
 * Embedding: use-lite 6-10 chunks/s under load (bench:throughput); transformers at bge-small's
 * shape 2.7/s fp32, 5.0/s int8 (bench/embed-shapes.ts).
 */
export const DEFAULT_RATES: Rates = {
  start_s: 1,
  fetch_base_s: 1.5,
  files_per_s: 200,
  index_base_s: 1,
  chunks_per_s: 1500,
  embed_chunks_per_s: { 'use-lite': 8, transformers: 3 },
  creates: 0,
};

export interface EstimateFile {
  path: string;
  bytes: number | null;
}

export interface EstimateInput {
  /** Files the fetch would keep, with their sizes when the probe knew them. */
  files: EstimateFile[];
  /** Sources known only by counts: npm packages (the registry's counts), web pages. */
  counted?: { kind: 'package' | 'page'; files: number; bytes: number | null }[];
  /** The recorded space (`provider:model:dim`), the config's provider when unrecorded, or "none". */
  embedder: string | null;
  /** Whether chunks get vectors in that space (topic notes always do). */
  chunkVectors: boolean;
  /** A source reached over the network: its download time is not in the estimate. */
  remote?: boolean;
}

export interface ApprovalEstimate {
  files: number;
  /** Total bytes, null when some size is known only at fetch time. */
  bytes: number | null;
  chunks: number;
  /** The command's start, fetch, commit and lexical index (until the create answers), seconds. */
  searchable_seconds: number;
  /** null when no chunk vectors are built or the provider's rate is unknown (a remote server). */
  vectors_seconds: number | null;
  vectors: 'none' | 'topic notes only' | 'chunks';
  embedder: string | null;
  /** What the times rest on: `measured` over this root's last creates, or `default`. */
  rates: { basis: 'measured' | 'default'; creates: number; files_per_s: number; chunks_per_s: number; embed_chunks_per_s: number | null };
  /** "~10,500 chunks, searchable in ~40 s, vectors in ~22 min in the background". */
  summary: string;
}

type Kind = 'prose' | 'code' | 'other';

function kindOf(path: string): { kind: Kind; language?: string } {
  if (isProsePath(path)) return { kind: 'prose' };
  const language = languageForPath(path);
  return language ? { kind: 'code', language } : { kind: 'other' };
}

/** Chunks the index will cut from one file. */
export function fileChunks(f: EstimateFile): number {
  const { kind, language } = kindOf(f.path);
  if (f.bytes === null) return CHUNKS_PER_FILE[kind];
  if (f.bytes === 0 || f.bytes > MAX_INDEXED_BYTES) return 0;
  const per = kind === 'code' ? (BYTES_PER_CHUNK.byLanguage[language!] ?? BYTES_PER_CHUNK.code) * (isTestPath(f.path) ? BYTES_PER_CHUNK.testCode : 1) : BYTES_PER_CHUNK[kind];
  return Math.max(1, LAST_PIECE + f.bytes / per);
}

/** Chunks of all the files and counted sources, unrounded. */
export function estimateChunks(input: Pick<EstimateInput, 'files' | 'counted'>): number {
  let n = input.files.reduce((s, f) => s + fileChunks(f), 0);
  for (const c of input.counted ?? []) {
    if (c.kind === 'page') n += c.files * CHUNKS_PER_FILE.page;
    // A package's files are known only from its tarball: its bytes at the mean of code and prose.
    else n += c.bytes !== null && c.bytes > 0 ? c.bytes / ((BYTES_PER_CHUNK.code + BYTES_PER_CHUNK.prose) / 2) : c.files * CHUNKS_PER_FILE.package_file;
  }
  return n;
}

/** Exact below 100, then three significant digits: an estimate, not a count. */
function round(n: number): number {
  if (n < 100) return Math.round(n);
  const mag = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 2);
  return Math.round(n / mag) * mag;
}

export function humanDuration(seconds: number): string {
  if (seconds < 90) return `~${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `~${Math.round(seconds / 60)} min`;
  return `~${(seconds / 3600).toFixed(1)} h`;
}

/** The embedding rate for a space key: measured for that key, else for its provider, else the default. */
export function embedRate(embedder: string, rates: Rates): number | null {
  const provider = embedder.split(':')[0]!;
  const p = provider === 'auto' ? 'use-lite' : provider;
  return rates.embed_chunks_per_s[embedder] ?? rates.embed_chunks_per_s[p] ?? DEFAULT_RATES.embed_chunks_per_s[p] ?? null;
}

export function estimateApproval(input: EstimateInput, rates: Rates = DEFAULT_RATES): ApprovalEstimate {
  const chunks = round(estimateChunks(input));
  const files = input.files.length + (input.counted ?? []).reduce((n, c) => n + c.files, 0);
  const known = input.files.every((f) => f.bytes !== null) && (input.counted ?? []).every((c) => c.kind === 'package' && c.bytes !== null);
  const bytes = known ? input.files.reduce((n, f) => n + (f.bytes ?? 0), 0) + (input.counted ?? []).reduce((n, c) => n + (c.bytes ?? 0), 0) : null;
  const searchable = rates.start_s + rates.fetch_base_s + files / rates.files_per_s + rates.index_base_s + chunks / rates.chunks_per_s;
  const provider = input.embedder && input.embedder !== 'none' ? input.embedder : null;
  const vectors: ApprovalEstimate['vectors'] = !provider ? 'none' : input.chunkVectors ? 'chunks' : 'topic notes only';
  const rate = provider ? embedRate(provider, rates) : null;
  const vectorsSeconds = vectors === 'chunks' && rate ? chunks / rate : null;
  const parts = [`~${chunks.toLocaleString('en-US')} chunk${chunks === 1 ? '' : 's'}`, `searchable in ${humanDuration(searchable)}${input.remote ? ' plus download time' : ''}`];
  if (vectors === 'chunks') parts.push(vectorsSeconds !== null ? `vectors in ${humanDuration(vectorsSeconds)} in the background` : 'vectors built in the background');
  else if (vectors === 'topic notes only') parts.push('topic-note vectors only (chunk vectors off for this model)');
  else parts.push('no vectors (lexical search)');
  return {
    files,
    bytes,
    chunks,
    searchable_seconds: Math.round(searchable * 10) / 10,
    vectors_seconds: vectorsSeconds === null ? null : Math.round(vectorsSeconds),
    vectors,
    embedder: input.embedder,
    rates: {
      basis: rates.creates > 0 ? 'measured' : 'default',
      creates: rates.creates,
      files_per_s: Math.round(rates.files_per_s),
      chunks_per_s: Math.round(rates.chunks_per_s),
      embed_chunks_per_s: vectors === 'chunks' && rate ? Math.round(rate * 10) / 10 : null,
    },
    summary: parts.join(', '),
  };
}
