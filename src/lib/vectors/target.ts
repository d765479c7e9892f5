/**
 * The vector facts a search reports beside its hits, from the config and the heads alone: the
 * target space and what each topic still lacks. Kept apart from status.ts and builder.ts so a cold
 * search reads them without loading the builder or the embedding cache.
 */
import { liveChunkCount, type TopicHead } from '../index/topic-index.js';
import { readConfig } from '../store/config.js';
import { envSetting } from '../settings.js';
import { chunkSetting, chunkVectorsFor, parseKey } from './space.js';

export interface VectorTarget {
  /** Recorded key; null when nothing is recorded (auto, resolved by the builder in memory). */
  key: string | null;
  /** "none" recorded or asked for: no vectors at all. */
  off: boolean;
  chunks: boolean;
  /** What to show people: the key, or the config's provider. */
  label: string;
}

export async function vectorTarget(root: string, env: NodeJS.ProcessEnv = process.env): Promise<VectorTarget> {
  const config = await readConfig(root);
  const recorded = config.embedding.recorded;
  const setting = chunkSetting(config);
  const envNone = envSetting('embedder', env)?.toLowerCase() === 'none';
  if (recorded === 'none' || envNone) return { key: null, off: true, chunks: false, label: 'none' };
  if (recorded && parseKey(recorded)) return { key: recorded, off: false, chunks: chunkVectorsFor(setting, recorded), label: recorded };
  const provider = config.embedding.provider || 'auto';
  // Unrecorded: auto finds use-lite on a machine without a local model; other providers are real models.
  const guess = provider === 'auto' || provider === 'use-lite' ? 'use-lite:?:1' : `${provider}:?:1`;
  return { key: null, off: false, chunks: chunkVectorsFor(setting, guess), label: provider };
}

export interface TopicPending {
  chunks: number;
  vectors: number;
  /** Chunks without a vector of the target space (0 when chunk vectors are off). */
  pending: number;
  /** Space the topic's index holds now (may differ from the target during a switch). */
  serving: string | null;
}

/**
 * From the head alone: what a topic still needs in space `key` (null: any space counts). `live`
 * is the head's live chunk count when the caller has it already (a loaded index's chunk map):
 * counting walks every file entry, which a warm search should not pay for on each answer.
 */
export function pendingOf(head: TopicHead | null, key: string | null, chunks: boolean, live = head ? liveChunkCount(head) : 0): TopicPending {
  const serving = head?.vectors?.key ?? null;
  const inTarget = head?.vectors && (key === null || head.vectors.key === key) ? head.vectors.count : 0;
  return { chunks: live, vectors: head?.vectors?.count ?? 0, pending: chunks ? Math.max(0, live - inTarget) : 0, serving };
}
