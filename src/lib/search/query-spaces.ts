/**
 * The question's vectors: which embedding spaces a search may use and the question embedded in
 * each, every model started and asked at most once per search.
 */
import { join } from 'node:path';

import type { Embedder } from '../embedding/types.js';
import type { RootConfig } from '../store/config.js';
import { FileMemo } from '../file-memo.js';
import type { ReferenceSearchRequest } from './search.js';

export interface QuerySpaces {
  /** Why no vector can be used at all (lexical only). */
  off?: string;
  warning?: string;
  /** The question's vector in space `key` (each model started and asked once). */
  vectorIn(key: string | null): Promise<{ embedder: Embedder; qvec: Float32Array } | { reason: string }>;
  /**
   * Only when the caller named a provider (`--embedder ollama`): starts it and embeds the question,
   * so a search that had no index space to ask it for still learns that it cannot answer.
   */
  probe?(): Promise<{ embedder: Embedder; qvec: Float32Array } | { reason: string }>;
}

const configs = new FileMemo<RootConfig>();

/**
 * The question is embedded in the space the index serves, by that space's own model: a read never
 * embeds anything else and never changes the recorded choice. A flag or environment asking for
 * another embedder gets a warning; "none" turns vectors off for this call.
 */
export async function querySpaces(root: string, req: ReferenceSearchRequest, question: string): Promise<QuerySpaces> {
  const cache = new Map<string, Promise<{ embedder: Embedder; qvec: Float32Array } | { reason: string }>>();
  const embedOnce = (key: string, get: () => Promise<Embedder>): Promise<{ embedder: Embedder; qvec: Float32Array } | { reason: string }> => {
    let p = cache.get(key);
    if (!p) {
      p = (async () => {
        let embedder: Embedder;
        try {
          embedder = await get();
        } catch (err) {
          return { reason: `embedder ${key} is unavailable: ${err instanceof Error ? err.message : String(err)}` };
        }
        try {
          return { embedder, qvec: await embedder.embedQuery(question) };
        } catch (err) {
          return { reason: `embedding the question failed: ${err instanceof Error ? err.message : String(err)}` };
        }
      })();
      cache.set(key, p);
    }
    return p;
  };
  const none = async (): Promise<{ reason: string }> => ({ reason: 'no vectors in this index yet' });
  if (req.mode === 'lexical') return { off: 'lexical mode requested', vectorIn: none };
  if (req.embedder !== undefined) {
    const fixed = req.embedder;
    if (!fixed) return { off: 'lexical search requested', vectorIn: none };
    return {
      vectorIn: (key) => (key === null || key === fixed.key ? embedOnce(fixed.key, async () => fixed) : Promise.resolve({ reason: `the index holds ${key}, not ${fixed.key}` })),
    };
  }
  const { settingsFromEnv } = await import('../embedding/index.js');
  const { CONFIG_FILE, readConfig } = await import('../store/config.js');
  // Read-only here: the parse is shared by the calls that find the file unchanged.
  const config = await configs.get(join(root, CONFIG_FILE), () => readConfig(root));
  const settings = settingsFromEnv(process.env, config.embedding as never, req.embedderFlag); // rejects unknown names
  if (settings.provider === 'none') return { off: 'embedder "none" selected: lexical search only', vectorIn: none };
  const recorded = config.embedding.recorded;
  if (recorded === 'none') return { off: 'this knowledge root records embedder "none": lexical search only', vectorIn: none };
  const { embedderForKey } = await import('../vectors/space.js');
  let warning: string | undefined;
  if (settings.provider !== 'auto' && recorded && !recorded.startsWith(`${settings.provider}:`)) {
    warning = `embedder ${settings.provider} was asked for, but this knowledge root records ${recorded}: using it (change it with \`tkoma-ref index embedder set\`)`;
  }
  const named = req.embedderFlag?.trim().toLowerCase();
  const explicit = named !== undefined && named !== '' && named !== 'auto';
  return {
    ...(warning ? { warning } : {}),
    vectorIn: (key) => (key ? embedOnce(key, () => embedderForKey(root, key)) : none()),
    ...(explicit
      ? {
          probe: () =>
            embedOnce(settings.provider, async () => {
              const { createEmbedder } = await import('../embedding/index.js');
              const e = await createEmbedder(settings);
              if (!e) throw new Error('no embedder');
              return e;
            }),
        }
      : {}),
  };
}
