/**
 * `index rebuild`: the lexical index again from the files (src/lib/index/service.ts), then every
 * vector the embedding cache holds for the space each topic served, put back without a model, so a
 * rebuild never discards vectors it could not recompute; what is missing is left to the
 * background builder. It lives here, above the index, because it joins both sides.
 */
import { TkomaError } from '../errors.js';
import { embeddingCacheDir, rebuildLexicalIndex, type SyncOptions, type SyncReport } from '../index/service.js';

export interface RebuildOptions extends Omit<SyncOptions, 'topicIds'> {
  /** --embedder; used when `embedder` is not given (resolved like every command does). */
  embedderFlag?: string;
}

export interface RebuildReport extends SyncReport {
  vector_search: { available: boolean; embedder?: string; reason?: string; warning?: string; restored?: number; pending?: number };
}

/**
 * Deletes the whole derived index and builds it again. An explicitly named embedder that cannot
 * run here fails before anything is touched (EMBEDDER_UNAVAILABLE).
 */
export async function rebuildIndex(root: string, opts: RebuildOptions = {}): Promise<RebuildReport> {
  const flag = opts.embedderFlag?.trim().toLowerCase();
  let warning: string | undefined;
  if (flag && flag !== 'auto' && flag !== 'none') {
    // The named provider must run here, whatever is recorded; otherwise nothing is touched.
    const { settingsFromEnv, createEmbedder } = await import('../embedding/index.js');
    const { readConfig } = await import('../store/config.js');
    const config = await readConfig(root);
    const settings = settingsFromEnv(process.env, config.embedding as never, flag);
    const started = await createEmbedder(settings).catch((err: unknown) => {
      throw new TkomaError('EMBEDDER_UNAVAILABLE', `${flag} cannot run here: ${err instanceof Error ? err.message : String(err)}; nothing was changed`, { embedder: flag });
    });
    const recorded = config.embedding.recorded;
    if (started && recorded && started.key !== recorded) {
      warning = `--embedder ${started.key} is not the recorded ${recorded}: the index keeps the recorded space (choose another with \`tkoma-ref index embedder set\`)`;
    }
  }
  const { report, served } = await rebuildLexicalIndex(root, opts);
  const { EmbeddingCache } = await import('../embedding/cache.js');
  const { applyFromCache, restoreNotesFromCache } = await import('./builder.js');
  const cache = new EmbeddingCache(embeddingCacheDir(root));
  let restored = 0;
  if (served.notes) restored += await restoreNotesFromCache(root, served.notes, cache);
  for (const [id, space] of served.topics) {
    if (!report.topics[id]) continue;
    const r = await applyFromCache(root, id, space, cache, { lockTimeoutMs: opts.lockTimeoutMs });
    if (r) {
      restored += r.added;
      report.topics[id] = { ...report.topics[id]!, vectors: r.vectors };
    }
  }
  const { vectorStatus } = await import('./status.js');
  const st = await vectorStatus(root);
  const serving = served.notes?.key ?? [...served.topics.values()][0]?.key;
  if (flag !== 'none' && st.pending + (st.notes.topics - st.notes.with_vectors) > 0) {
    const { requestVectors } = await import('./background.js');
    await requestVectors(root);
  }
  return {
    ...report,
    vector_search: {
      available: restored > 0 || Boolean(serving),
      ...(serving ? { embedder: serving } : { reason: 'no vectors yet: built in the background' }),
      ...(warning ? { warning } : {}),
      restored,
      pending: st.pending,
    },
  };
}
