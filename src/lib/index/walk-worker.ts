/** Worker thread of walk-prefetch.ts: lists one topic folder and posts the listing back. */
import { parentPort, workerData } from 'node:worker_threads';

import { listFiles } from './walk.js';

const listing = listFiles((workerData as { dir: string }).dir);
parentPort!.postMessage(listing, [listing.stats.buffer as ArrayBuffer]);
