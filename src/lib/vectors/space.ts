/**
 * Which vector space a knowledge root builds and which it serves. Pure reads: nothing here writes
 * or commits. The choice is recorded only by `init --embedder` and `index embedder set`
 * (choice.ts); a read command that asks for another embedder gets the recorded one and a warning.
 *
 * - target: the space the builder fills (the recorded key; without a record, what the config or
 *   environment names, resolved in memory and never written down);
 * - served: the space each topic's hnsw index and the notes index hold now. Search embeds its
 *   question with the served space's own model, so while a model switch builds the new space in
 *   the background the old one keeps answering, and two spaces are never mixed.
 */
import type { Embedder, EmbedderProvider, EmbedderSettings } from '../embedding/types.js';
import { settingEnv } from '../settings.js';
import { type RootConfig, readConfig } from '../store/config.js';

/** `chunks` setting of tkoma-ref.toml: chunk vectors on, off, or decided by the model (auto). */
export type ChunkVectors = 'auto' | 'on' | 'off';

export function chunkSetting(config: RootConfig): ChunkVectors {
  const v = (config.embedding as { chunks?: unknown }).chunks;
  return v === 'on' || v === 'off' ? v : 'auto';
}

/**
 * Whether chunks get vectors in this space. `auto`: not with use-lite, which measured no better
 * than BM25 alone on every held-out set we have (docs/BENCHMARKS.md, "Vectors: when they earn
 * their keep"); topic-note vectors are always built (cheap, and topic choice by meaning needs them).
 */
export function chunkVectorsFor(setting: ChunkVectors, key: string | null): boolean {
  if (setting === 'on') return true;
  if (setting === 'off' || !key) return false;
  return !key.startsWith('use-lite:');
}

/** `provider:model:dimension`; the model may itself contain `:` (ollama tags). */
export function parseKey(key: string): { provider: string; model: string; dimension: number } | null {
  const first = key.indexOf(':');
  const last = key.lastIndexOf(':');
  if (first <= 0 || last <= first) return null;
  const dimension = Number(key.slice(last + 1));
  if (!Number.isInteger(dimension) || dimension <= 0) return null;
  return { provider: key.slice(0, first), model: key.slice(first + 1, last), dimension };
}

const PROVIDERS: readonly string[] = ['transformers', 'use-lite', 'ollama', 'openai'];

// One started embedder per space per process; failures are not remembered (a server may come up).
const started = new Map<string, Promise<Embedder | null>>();

export function startOnce(id: string, start: () => Promise<Embedder | null>): Promise<Embedder | null> {
  let p = started.get(id);
  if (!p) {
    p = start();
    started.set(id, p);
    p.then(
      (e) => {
        if (!e) started.delete(id);
      },
      () => started.delete(id),
    );
  }
  return p;
}

export function forgetStarted(): void {
  started.clear();
}

/**
 * The model of exactly the space `key` (connection details from the config and environment).
 * Throws when it cannot start, or when what starts is another space (a model that changed
 * dimension): vectors of two spaces are never compared.
 */
export async function embedderForKey(root: string, key: string): Promise<Embedder> {
  const parsed = parseKey(key);
  if (!parsed || !PROVIDERS.includes(parsed.provider)) throw new Error(`"${key}" names no known embedder`);
  const { settingsFromEnv, createEmbedder } = await import('../embedding/index.js');
  const config = await readConfig(root);
  const env = { ...process.env };
  delete env[settingEnv('embedder')]; // the space decides the provider, not the environment
  // The config's URL and keys serve the recorded provider even when `provider` says auto.
  const base = settingsFromEnv(env, { ...config.embedding, provider: parsed.provider } as Partial<EmbedderSettings>, parsed.provider);
  const settings: EmbedderSettings = { ...base, provider: parsed.provider as EmbedderProvider, model: parsed.model };
  const e = await startOnce(JSON.stringify(settings), () => createEmbedder(settings));
  if (!e) throw new Error(`embedder ${key} did not start`);
  if (e.key !== key) throw new Error(`embedder started as ${e.key}, the index holds ${key}`);
  return e;
}
