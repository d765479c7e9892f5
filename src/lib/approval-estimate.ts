/**
 * What approving a topic will cost, from measured rates (docs/BENCHMARKS.md, this 2-core
 * machine): how many chunks, how long until it is searchable (lexical), and how long its vectors
 * take in the background with the recorded embedder. Pure: the caller passes what phase 1 probed
 * and what the root records. The `cli` command's --dry-run can use the same function.
 */

/** Rates measured here; an operator's faster machine only makes the estimates pessimistic. */
export const MEASURED_RATES = {
  /** Dioxus: 7.4 MB of source gave ~10.5k chunks (issue 10); the node_modules corpus is close. */
  bytesPerChunk: 705,
  /** When sizes are unknown before the fetch: Dioxus 10.5k chunks / 1,413 files. */
  chunksPerFile: 7.4,
  /** Whole `topic create` without vectors (fetch, chunk, BM25, commit): 64,903 chunks in 39.5 s. */
  searchableChunksPerSecond: 1644,
  /** Fixed cost of a create (git, process start, commit). */
  searchableBaseSeconds: 2,
  /**
   * Background embedding, chunks per second by provider (at low priority, so a busy machine is
   * slower): use-lite 11.9/s quiet in bench:throughput (3.8–8.6/s under load in issue 10);
   * transformers: bge-small-en-v1.5's shape on ~600-character chunks, 2.7/s fp32 and 5.0/s int8
   * at batch 4 (bench/embed-shapes.ts, load 5 on 2 shared cores).
   */
  embedChunksPerSecond: { 'use-lite': 8, transformers: 3 } as Record<string, number>,
} as const;

export interface EstimateInput {
  files: number;
  /** Total bytes when the probe knew them. */
  bytes?: number | null;
  /** The recorded space (`provider:model:dim`), the config's provider when unrecorded, or "none". */
  embedder: string | null;
  /** Whether chunks get vectors in that space (topic notes always do). */
  chunkVectors: boolean;
}

export interface ApprovalEstimate {
  chunks: number;
  searchable_seconds: number;
  /** null when no chunk vectors are built or the provider's rate is unknown (a remote server). */
  vectors_seconds: number | null;
  vectors: 'none' | 'topic notes only' | 'chunks';
  embedder: string | null;
  /** "~10,500 chunks, searchable in ~10 s, vectors in ~22 min in the background". */
  summary: string;
}

function round(n: number): number {
  if (n < 100) return Math.max(1, Math.round(n / 10) * 10 || Math.round(n));
  const mag = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 2);
  return Math.round(n / mag) * mag;
}

export function humanDuration(seconds: number): string {
  if (seconds < 90) return `~${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `~${Math.round(seconds / 60)} min`;
  return `~${(seconds / 3600).toFixed(1)} h`;
}

export function estimateApproval(input: EstimateInput, rates = MEASURED_RATES): ApprovalEstimate {
  const raw = input.bytes && input.bytes > 0 ? input.bytes / rates.bytesPerChunk : input.files * rates.chunksPerFile;
  const chunks = raw > 0 ? round(raw) : 0;
  const searchable = rates.searchableBaseSeconds + chunks / rates.searchableChunksPerSecond;
  const provider = input.embedder && input.embedder !== 'none' ? input.embedder.split(':')[0]! : null;
  const vectors: ApprovalEstimate['vectors'] = !provider ? 'none' : input.chunkVectors ? 'chunks' : 'topic notes only';
  const rate = provider ? (rates.embedChunksPerSecond[provider === 'auto' ? 'use-lite' : provider] ?? null) : null;
  const vectorsSeconds = vectors === 'chunks' && rate ? chunks / rate : null;
  const parts = [`~${chunks.toLocaleString('en-US')} chunks`, `searchable in ${humanDuration(searchable)}`];
  if (vectors === 'chunks') parts.push(vectorsSeconds !== null ? `vectors in ${humanDuration(vectorsSeconds)} in the background` : 'vectors built in the background');
  else if (vectors === 'topic notes only') parts.push('topic-note vectors only (chunk vectors off for this model)');
  else parts.push('no vectors (lexical search)');
  return {
    chunks,
    searchable_seconds: Math.round(searchable * 10) / 10,
    vectors_seconds: vectorsSeconds === null ? null : Math.round(vectorsSeconds),
    vectors,
    embedder: input.embedder,
    summary: parts.join(', '),
  };
}
