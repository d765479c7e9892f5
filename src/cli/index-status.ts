/**
 * `index status`: the work and its rendering, with no oclif import, so the start-up fast path
 * (cli/fast.ts) answers it as the oclif command (commands/index/status.ts) does.
 */
import type { IndexStatus } from '../lib/index/service.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';

export async function runIndexStatus(f: { root?: string }): Promise<unknown> {
  const root = requireRoot(resolveRootPath(f.root));
  const { indexStatusWithVectors } = await import('../lib/vectors/status.js');
  return indexStatusWithVectors(root);
}

type VectorWork = {
  target: string;
  chunk_vectors: boolean;
  builder: { pid: number } | null;
  pending: number;
  notes: { serving: string | null; topics: number; with_vectors: number };
  topics: Record<string, { chunks: number; vectors: number; pending: number; serving: string | null }>;
};
type Status = Partial<IndexStatus> & { vector_work?: VectorWork } & Record<string, unknown>;

const NOT_LISTED = 5;
const row = (label: string, text: string): string => `${label.padEnd(14)} ${text}`;
const more = (text: string): string => row('', text);
const kb = (bytes: number): string => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
const n = (x: number): string => x.toLocaleString('en-US');

/** `index status` for a person: sentences and counts, nothing a reader has to decode as JSON. Pure. */
export function renderIndexStatus(raw: Record<string, unknown>): string {
  const { topics, files, chunks, vectors, embedder, dimension, pending, bytes_on_disk, cache_bytes, broken, not_indexed, vector_work: vw, ...rest } = raw as Status;
  const lines = [row('index', `${n(topics ?? 0)} topics, ${n(files ?? 0)} files, ${n(chunks ?? 0)} chunks (${kb(bytes_on_disk ?? 0)} on disk, embedding cache ${kb(cache_bytes ?? 0)})`)];
  lines.push(row('embedder', embedder ? `${embedder}${dimension ? `, ${dimension} dimensions` : ''}` : 'none (lexical search only)'));
  if (pending) {
    const parts = (['changed', 'added', 'removed'] as const).filter((k) => pending[k] > 0).map((k) => `${n(pending[k])} ${k}`);
    lines.push(row('pending', parts.length ? `${parts.join(', ')} (files waiting for the next sync)` : 'none: the index matches the files'));
  }
  if (broken?.length) {
    lines.push(row('broken', `${broken.length} topics are not searched until their topic.md is fixed:`));
    for (const b of broken) lines.push(more(`${b.topic_id}: ${b.error.code} ${b.error.message}`));
  }
  if (not_indexed?.count) {
    lines.push(row('not indexed', `${n(not_indexed.count)} files:`));
    for (const f of not_indexed.files.slice(0, NOT_LISTED)) lines.push(more(`${f.topic_id}/${f.path} (${f.reason.replace(/_/g, ' ')}, ${kb(f.bytes)})`));
    if (not_indexed.count > NOT_LISTED) lines.push(more(`… ${n(not_indexed.count - NOT_LISTED)} more (--json lists up to 100)`));
  }
  for (const [k, v] of Object.entries(rest)) lines.push(row(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)));
  if (!vw) {
    lines.push(row('vectors', `${n(vectors ?? 0)} chunk vectors`));
    return lines.join('\n');
  }
  const building = vw.builder ? `, building now (pid ${vw.builder.pid})` : '';
  // With chunk vectors off by design (use-lite) "0 vectors" or a per-topic "0/1,234 (0%)" reads like a failure.
  if (vw.target === 'none') lines.push(row('vectors', `none: search is lexical${building}`));
  else if (!vw.chunk_vectors) lines.push(row('vectors', `${vw.target}: chunks are ranked lexically by design; topic notes use vectors${building}`));
  else lines.push(row('vectors', `${vw.target}: ${n(vectors ?? 0)} of ${n(chunks ?? 0)} chunks have vectors, ${n(vw.pending)} pending${building}`));
  lines.push(more(`topic notes: ${vw.notes.with_vectors}/${vw.notes.topics} with vectors${vw.notes.serving ? ` (${vw.notes.serving})` : ''}`));
  if (vw.chunk_vectors) {
    for (const [id, t] of Object.entries(vw.topics)) {
      const pct = t.chunks > 0 ? Math.floor((t.vectors / t.chunks) * 100) : 100;
      lines.push(more(`${id}: ${n(t.vectors)}/${n(t.chunks)} (${pct}%)${t.pending > 0 ? `, ${n(t.pending)} pending` : ''}${t.serving ? `, serving ${t.serving}` : ''}`));
    }
  }
  return lines.join('\n');
}
