/**
 * The one place topic mutations reach the derived index. Indexing happens after the commit, so a
 * failure here never undoes a fetched topic: it becomes a warning, and the next search (or
 * `index rebuild`) catches up, because the index is derived from the files.
 *
 * Only the lexical side is built here: the command returns as soon as the topic is searchable.
 * Vectors are built in the background (src/lib/vectors/background.ts) and the answer says how
 * many chunks still wait for theirs.
 */
import type { ChunksAhead } from '../chunking/ahead.js';
import { asTkomaError } from '../errors.js';
import type { CommitAuthor } from '../root-git.js';
import type { Progress } from '../progress.js';
import type { VectorOutlook } from '../vectors/status.js';

export interface IndexOutcome {
  chunks: Record<string, number>;
  warnings: string[];
  vector_search: VectorOutlook;
}

export async function indexTopics(
  root: string,
  topicIds: string[],
  /** `ahead`: a create's files cut while they were fetched (the sync takes what still matches). */
  opts: { embedderFlag?: string | undefined; progress: Progress; author: CommitAuthor; ahead?: ChunksAhead },
): Promise<IndexOutcome> {
  const warnings: string[] = [];
  try {
    const { syncIndex } = await import('../index/service.js');
    const report = await opts.progress.task('Index (chunk, BM25)', (update) =>
      syncIndex(root, {
        topicIds,
        embedder: null,
        onProgress: (e) => update(`${e.phase} ${e.done}/${e.total}`),
        ...(opts.ahead ? { ahead: opts.ahead } : {}),
      }),
    );
    const chunks: Record<string, number> = {};
    for (const id of topicIds) chunks[id] = report.topics[id]?.chunks ?? 0;
    const { vectorOutlook } = await import('../vectors/status.js');
    const outlook = await vectorOutlook(root, topicIds, { flag: opts.embedderFlag, warnings });
    return { chunks, warnings, vector_search: outlook };
  } catch (err) {
    const e = asTkomaError(err);
    warnings.push(`indexing failed (${e.code}): ${e.message}; search will retry, or run \`tkoma-ref index rebuild\``);
    return { chunks: {}, warnings, vector_search: { available: false, reason: e.message } };
  }
}
