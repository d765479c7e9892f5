/**
 * The script git runs as the merge driver (`.git/config`, see drivers.ts):
 *   node dist/lib/sync/merge-driver.js topic|records %O %A %B %P
 * Loaded without oclif, as git may run it once per merged file. Never a stack trace: anything
 * unexpected leaves the file to git's own text merge.
 */
import { execFileSync } from 'node:child_process';

import { type DriverKind, runMergeDriver } from './drivers.js';

const [kind, ancestor, current, other, path] = process.argv.slice(2);
let status: number;
try {
  if ((kind !== 'topic' && kind !== 'records') || !ancestor || !current || !other) throw new Error('usage: merge-driver topic|records %O %A %B %P');
  status = runMergeDriver(kind as DriverKind, ancestor, current, other, path);
} catch (err) {
  process.stderr.write(`tkoma-ref merge driver: ${(err as Error).message}; merging ${path ?? 'the file'} as text\n`);
  try {
    execFileSync('git', ['merge-file', '-L', 'ours', '-L', 'base', '-L', 'theirs', current!, ancestor!, other!], { stdio: 'ignore' });
    status = 0;
  } catch {
    status = 1;
  }
}
process.exit(status);
