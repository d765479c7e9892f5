/**
 * The detached background vector builder: `node worker.js <root>`. Started by requestVectors
 * (background.ts); runs at the lowest OS priority, exits when no vector work is left.
 */
import { resolve } from 'node:path';

import { runVectorWorker, spawnVectorWorker, wantedSince } from './background.js';

import { envSetting } from '../settings.js';

const root = resolve(process.argv[2] ?? envSetting('root') ?? '.');
const outcome = await runVectorWorker(root);
// A request that came in after our last pass began found the lock held and started nothing.
if (outcome.ran && outcome.lastPass !== undefined && wantedSince(root) >= outcome.lastPass) spawnVectorWorker(root);
process.exit(0);
