/**
 * Whether the index is current with the files, for readers: the check every search makes before
 * anything else. Apart from sync.ts (which writes) so that a search whose files did not move
 * never loads the writing side.
 */
import { join } from 'node:path';

import { referencesDir } from '../store/root-path.js';
import { INDEX_FORMAT, readMeta } from './layout.js';
import { takePrefetchedListing } from './listing-prefetch.js';
import { MAX_INDEXED_BYTES, sameFilesByListing, sameFilesByStat } from './scan.js';
import { lstatOrNull } from './walk.js';

/**
 * The largest file the index chunks: the fetch cap (`limits.max_file_bytes` of tkoma-ref.toml, 1
 * MiB by default), so one limit governs what is fetched and what is searchable. A file above it is
 * still indexed when the manifest says the fetcher kept it as it is (a request's own `limits` may
 * have allowed it); anything else is recorded as skipped 'too-large' and listed by `index status`.
 */
export async function indexCap(root: string): Promise<number> {
  const { DEFAULT_LIMITS, effectiveLimits } = await import('../safety/limits.js');
  try {
    const { readConfig } = await import('../store/config.js');
    return Math.max(MAX_INDEXED_BYTES, effectiveLimits((await readConfig(root)).limits).max_file_bytes);
  } catch {
    return Math.max(MAX_INDEXED_BYTES, DEFAULT_LIMITS.max_file_bytes); // a broken config is reported by the commands that write
  }
}

/**
 * Without any lock: true when a lexical sync of `topicIds` would change nothing (every file and
 * topic.md has the size and mtime the index recorded). Readers check this first, so a search
 * never waits behind a background builder's short apply when the files did not move.
 */
export async function lexicallyCurrent(root: string, topicIds: string[]): Promise<boolean> {
  const meta = await readMeta(root);
  if (!meta || meta.format !== INDEX_FORMAT) return false;
  const { loadHeadForReading } = await import('./topic-index.js');
  const { loadNotes } = await import('./notes/index.js');
  const notes = await loadNotes(root);
  let cap: number | undefined;
  for (const id of topicIds) {
    const head = await loadHeadForReading(root, id);
    if (!head) return false;
    const dir = join(referencesDir(root), id);
    const listing = await takePrefetchedListing(dir);
    if (!((listing && sameFilesByListing(listing, head.files)) ?? sameFilesByStat(dir, head.files))) return false;
    // A file left out as too large that a raised `limits.max_file_bytes` now admits.
    for (const skipped of head.files.skippedFiles()) {
      if (skipped.reason !== 'too-large') continue;
      cap ??= await indexCap(root);
      if (skipped.size <= cap) return false;
    }
    const st = lstatOrNull(join(referencesDir(root), id, 'topic.md'));
    const n = notes.topics[id];
    if (!st || !n || n.size !== st.size || n.mtimeMs !== st.mtimeMs) return false;
  }
  return true;
}
