/**
 * The rates estimates rest on, measured on this machine: each create records its files, chunks
 * and the seconds of its fetch + commit and index phases, each vector build its embedding speed,
 * in `.tkoma/estimates.json` (derived state: not committed, deleted with `.tkoma/`). A lost
 * update between two writers costs one sample, so no lock is taken.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { DEFAULT_RATES, type Rates } from './estimate.js';

export interface CreateSample {
  at: string;
  files: number;
  chunks: number;
  fetch_s: number;
  index_s: number;
  /** A command's own start (process, parsing, the gate) before phase 2; absent in a long-lived server. */
  start_s?: number;
}

export interface EstimateState {
  version: 1;
  /** The last creates, oldest first. */
  creates: CreateSample[];
  /** Per space key: chunks embedded per second by the last builds, smoothed. */
  embedding: Record<string, { chunks_per_s: number; at: string }>;
}

/** Enough to follow the machine's load without forgetting a large create at once. */
const KEEP_CREATES = 10;
/** The defaults stand for a create of this size (fitPhase). */
const PRIOR = { files: 300, chunks: 2000 };
/** Weight of the newest build in the smoothed embedding rate. */
const EMBED_NEW_WEIGHT = 0.5;

export const estimatesFile = (root: string): string => join(root, '.tkoma', 'estimates.json');

function emptyState(): EstimateState {
  return { version: 1, creates: [], embedding: {} };
}

function isState(v: unknown): v is EstimateState {
  const s = v as EstimateState;
  return typeof v === 'object' && v !== null && s.version === 1 && Array.isArray(s.creates) && typeof s.embedding === 'object' && s.embedding !== null;
}

export async function readEstimateState(root: string): Promise<EstimateState> {
  try {
    const v: unknown = JSON.parse(await readFile(estimatesFile(root), 'utf8'));
    if (!isState(v)) return emptyState();
    const ok = (n: unknown): boolean => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    return {
      version: 1,
      creates: v.creates.filter((c) => ok(c.files) && ok(c.chunks) && ok(c.fetch_s) && ok(c.index_s)),
      embedding: Object.fromEntries(Object.entries(v.embedding).filter(([, e]) => ok(e?.chunks_per_s) && e.chunks_per_s > 0)),
    };
  } catch {
    return emptyState(); // missing or damaged: derived state, the defaults stand in
  }
}

async function writeState(root: string, state: EstimateState): Promise<void> {
  const file = estimatesFile(root);
  await mkdir(join(root, '.tkoma'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify(state, null, 1)}\n`);
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * `y = a + x / rate` fitted by least squares over the samples and two points the defaults give
 * (nothing, and a create of `prior` work), so one tiny create moves the fixed cost, not the rate,
 * and a large one settles the rate. Falls back to the defaults when the fit is not sensible.
 */
export function fitPhase(samples: { x: number; y: number }[], base: number, rate: number, prior: number): { base_s: number; per_s: number } {
  if (samples.length === 0) return { base_s: base, per_s: rate };
  const pts = [{ x: 0, y: base }, { x: prior, y: base + prior / rate }, ...samples];
  const n = pts.length;
  const mx = pts.reduce((t, p) => t + p.x, 0) / n;
  const my = pts.reduce((t, p) => t + p.y, 0) / n;
  const sxx = pts.reduce((t, p) => t + (p.x - mx) ** 2, 0);
  const slope = pts.reduce((t, p) => t + (p.x - mx) * (p.y - my), 0) / sxx;
  if (!(slope > 0) || !Number.isFinite(slope)) return { base_s: base, per_s: rate };
  const a = my - slope * mx;
  // A negative fixed cost would mean the line is steeper than the work: keep the slope through 0.
  if (a < 0) return { base_s: 0, per_s: pts.reduce((t, p) => t + p.x * p.x, 0) / pts.reduce((t, p) => t + p.x * p.y, 0) };
  return { base_s: a, per_s: 1 / slope };
}

/** Rates from the recorded creates (see fitPhase). Pure. */
export function ratesFrom(state: EstimateState, defaults: Rates = DEFAULT_RATES): Rates {
  const c = state.creates;
  const fetch = fitPhase(c.map((s) => ({ x: s.files, y: s.fetch_s })), defaults.fetch_base_s, defaults.files_per_s, PRIOR.files);
  const index = fitPhase(c.map((s) => ({ x: s.chunks, y: s.index_s })), defaults.index_base_s, defaults.chunks_per_s, PRIOR.chunks);
  const starts = c.flatMap((s) => (typeof s.start_s === 'number' ? [s.start_s] : []));
  const embed = { ...defaults.embed_chunks_per_s };
  for (const [key, e] of Object.entries(state.embedding)) {
    embed[key] = e.chunks_per_s;
    // The provider's rate too, for an estimate made before that model's first build.
    const provider = key.split(':')[0]!;
    embed[provider] = e.chunks_per_s;
  }
  return {
    start_s: (starts.reduce((t, v) => t + v, 0) + defaults.start_s) / (starts.length + 1),
    fetch_base_s: fetch.base_s,
    files_per_s: fetch.per_s,
    index_base_s: index.base_s,
    chunks_per_s: index.per_s,
    embed_chunks_per_s: embed,
    creates: c.length,
  };
}

export async function measuredRates(root: string): Promise<Rates> {
  return ratesFrom(await readEstimateState(root));
}

/** After a create: its phases' seconds. Never fails the create. */
export async function recordCreate(root: string, sample: Omit<CreateSample, 'at'>): Promise<void> {
  try {
    const state = await readEstimateState(root);
    state.creates = [...state.creates, { at: new Date().toISOString(), ...sample }].slice(-KEEP_CREATES);
    await writeState(root, state);
  } catch {
    // a rate is a courtesy to the next estimate
  }
}

/** After a vector build that embedded enough to time: its speed for that space. Never fails the build. */
export async function recordEmbedding(root: string, key: string, chunks: number, seconds: number): Promise<void> {
  if (chunks < 32 || seconds <= 0) return;
  try {
    const state = await readEstimateState(root);
    const rate = chunks / seconds;
    const old = state.embedding[key]?.chunks_per_s;
    state.embedding[key] = { chunks_per_s: old ? EMBED_NEW_WEIGHT * rate + (1 - EMBED_NEW_WEIGHT) * old : rate, at: new Date().toISOString() };
    await writeState(root, state);
  } catch {
    // as above
  }
}
