/**
 * `index status`: the work and its rendering, with no oclif import, so the start-up fast path
 * (cli/fast.ts) answers it as the oclif command (commands/index/status.ts) does.
 */
import { requireRoot, resolveRootPath } from '../lib/store/root.js';

export async function runIndexStatus(f: { root?: string }): Promise<unknown> {
  const root = requireRoot(resolveRootPath(f.root));
  const { indexStatusWithVectors } = await import('../lib/vectors/status.js');
  return indexStatusWithVectors(root);
}

export function renderIndexStatus(s: Record<string, unknown>): string {
  const { vector_work: vw, ...rest } = s as { vector_work?: { target: string; chunk_vectors: boolean; builder: { pid: number } | null; pending: number; notes: { serving: string | null; topics: number; with_vectors: number }; topics: Record<string, { chunks: number; vectors: number; pending: number; serving: string | null }> } };
  const lines = Object.entries(rest).map(([k, v]) => `${k.padEnd(14)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`);
  if (vw) {
    lines.push(
      `${'vectors'.padEnd(14)} ${vw.target}, chunk vectors ${vw.chunk_vectors ? 'on' : 'off'}, ${vw.pending} chunks pending${vw.builder ? `, building (pid ${vw.builder.pid})` : ''}`,
      `${''.padEnd(14)} topic notes: ${vw.notes.with_vectors}/${vw.notes.topics} with vectors${vw.notes.serving ? ` (${vw.notes.serving})` : ''}`,
    );
    // With chunk vectors off by design (use-lite) a per-topic "0/1,234 (0%)" reads like a failure.
    if (!vw.chunk_vectors) lines.push(`${''.padEnd(14)} chunks are ranked lexically by design with ${vw.target}; topic notes use vectors`);
    else {
      for (const [id, t] of Object.entries(vw.topics)) {
        const pct = t.chunks > 0 ? Math.floor((t.vectors / t.chunks) * 100) : 100;
        lines.push(`${''.padEnd(14)} ${id}: ${t.vectors}/${t.chunks} (${pct}%)${t.pending > 0 ? `, ${t.pending} pending` : ''}${t.serving ? `, serving ${t.serving}` : ''}`);
      }
    }
  }
  return lines.join('\n');
}
