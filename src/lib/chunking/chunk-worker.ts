/**
 * A worker thread of the chunk pool (pool.ts): chunks the files it is sent (a batch per message),
 * one at a time, with the same chunkFile the main thread uses, counts their chunks' BM25 terms
 * (unless told not to: pool.ts countsInWorkers), and answers the batch with the chunks (as offsets
 * into the texts it was sent: wire.ts) and the packed terms (index/chunk-terms.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';

import { ChunkTermPacker } from '../index/chunk-terms.js';
import type { ChunkWorkerData } from './code-grammars.js';
import { chunkFile } from './index.js';
import type { BatchReply, ChunkJob, ChunkReply } from './pool.js';
import { toWire } from './wire.js';

const port = parentPort;
if (port) {
  const packer = (workerData as ChunkWorkerData | null)?.countTerms === false ? null : new ChunkTermPacker();
  // One file at a time: the tree-sitter parser of this thread is shared by every file.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (jobs: ChunkJob[]) => {
    queue = queue.then(async () => {
      const files: ChunkReply[] = [];
      for (const job of jobs) {
        let chunks;
        try {
          chunks = await chunkFile(job.path, job.text);
        } catch (err) {
          files.push({ id: job.id, error: err instanceof Error ? err.message : String(err) });
          continue;
        }
        // Outside the try: counting never fails on a string, and if it somehow did, a half
        // counted file must kill this thread (its files are then redone in the main thread)
        // rather than shift every later file's terms.
        packer?.addFile(job.path, chunks);
        files.push({ id: job.id, chunks: toWire(job.text, chunks) });
      }
      if (!packer) {
        port.postMessage({ files } satisfies BatchReply);
        return;
      }
      const { packed, transfer } = packer.take();
      const reply: BatchReply = { files, terms: packed };
      port.postMessage(reply, transfer);
    });
  });
}
