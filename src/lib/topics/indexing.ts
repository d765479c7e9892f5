/**
 * The one place topic mutations reach the derived index. Indexing happens after the commit, so a
 * failure here never undoes a fetched topic: it becomes a warning, and the next search (or
 * `index rebuild`) catches up, because the index is derived from the files.
 */
import { asTkomaError } from '../errors.js';
import type { CommitAuthor } from '../root-git.js';
import type { Progress } from '../progress.js';

export interface IndexOutcome {
  chunks: Record<string, number>;
  warnings: string[];
  vector_search: { available: boolean; embedder?: string; reason?: string };
}

export async function indexTopics(
  root: string,
  topicIds: string[],
  opts: { embedderFlag?: string; progress: Progress; author: CommitAuthor },
): Promise<IndexOutcome> {
  const warnings: string[] = [];
  try {
    const { resolveEmbedder, syncIndex } = await import('../index/service.js');
    const resolved = await resolveEmbedder(root, { flag: opts.embedderFlag });
    if (resolved.reason) warnings.push(`vector search unavailable: ${resolved.reason}`);
    const report = await opts.progress.task('Index (chunk, embed, BM25 + vectors)', (update) =>
      syncIndex(root, {
        topicIds,
        embedder: resolved.embedder,
        onProgress: (e) => update(`${e.phase} ${e.done}/${e.total}`),
      }),
    );
    const chunks: Record<string, number> = {};
    for (const id of topicIds) chunks[id] = report.topics[id]?.chunks ?? 0;
    return {
      chunks,
      warnings,
      vector_search: resolved.embedder
        ? { available: true, embedder: resolved.embedder.key }
        : { available: false, reason: resolved.reason ?? 'no embedder configured (lexical search only)' },
    };
  } catch (err) {
    const e = asTkomaError(err);
    warnings.push(`indexing failed (${e.code}): ${e.message}; search will retry, or run \`tkoma-ref index rebuild\``);
    return { chunks: {}, warnings, vector_search: { available: false, reason: e.message } };
  }
}
