/**
 * The estimate for a request as phase 1 probed it: the files each git source would keep (paths
 * and sizes), npm packages and web pages by count, the root's vector target and its measured rates.
 */
import type { ProbedSource } from '../topics/create-probe.js';
import { type ApprovalEstimate, estimateApproval, type EstimateInput } from './estimate.js';

export type EstimateWork = Pick<EstimateInput, 'files' | 'counted' | 'remote'>;

/** What the fetch would bring, from phase 1's probes. Pure. */
export function workOf(probed: ProbedSource[]): EstimateWork {
  const files = probed.filter((p) => p.details.type === 'git').flatMap((p) => p.kept.map((f) => ({ path: f.path, bytes: f.bytes ?? f.size_hint ?? null })));
  const counted: NonNullable<EstimateInput['counted']> = [];
  for (const p of probed) {
    const d = p.details;
    if (d.type === 'npm') {
      const capped = Object.values(d.capped ?? {}).reduce((n, v) => n + v, 0);
      counted.push({ kind: 'package', files: Math.max(0, (d.file_count ?? 0) - capped), bytes: d.total_bytes ?? null });
    } else if (d.type === 'web') counted.push({ kind: 'page', files: p.kept.length, bytes: null });
  }
  const remote = probed.some((p) => p.details.type !== 'git' || !p.details.url.startsWith('file:'));
  return { files, counted, remote };
}

export async function estimateFor(root: string, work: EstimateWork): Promise<ApprovalEstimate | null> {
  try {
    const { vectorTarget } = await import('../vectors/target.js');
    const { measuredRates } = await import('./rates.js');
    const [target, rates] = await Promise.all([vectorTarget(root), measuredRates(root)]);
    return estimateApproval({ ...work, embedder: target.off ? 'none' : target.label, chunkVectors: target.chunks && !target.off }, rates);
  } catch {
    return null; // an estimate is a courtesy: never fail phase 1 for it
  }
}
