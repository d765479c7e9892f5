/**
 * A worker thread of the chunk pool (pool.ts): chunks the files it is sent (a batch per message), one at a time, with
 * the same chunkFile the main thread uses, and answers each with its chunks.
 */
import { parentPort } from 'node:worker_threads';

import { chunkFile } from './index.js';
import type { ChunkJob, ChunkReply } from './pool.js';

const port = parentPort;
if (port) {
  // One file at a time: the tree-sitter parser of this thread is shared by every file.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (jobs: ChunkJob[]) => {
    queue = queue.then(async () => {
      const replies: ChunkReply[] = [];
      for (const job of jobs) {
        try {
          replies.push({ id: job.id, chunks: await chunkFile(job.path, job.text) });
        } catch (err) {
          replies.push({ id: job.id, error: err instanceof Error ? err.message : String(err) });
        }
      }
      port.postMessage(replies);
    });
  });
}
