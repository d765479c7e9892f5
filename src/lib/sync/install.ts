/**
 * Puts the merge drivers in place (drivers.ts): the config lines of this clone, and the root's
 * `.gitattributes` lines, committed once on a root made before they existed. Run by `init`, by
 * every mutation (runMutation) and by `sync`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { runMutation } from '../mutation/run.js';
import { ATTRIBUTES_FILE, attributesEdited, installDriverConfig, withAttributeLines } from './drivers.js';

export const MERGE_DRIVERS_OP = 'merge-drivers';

/**
 * The config lines (best effort: a clone without them merges as text) and the committed
 * attributes. `config`: the driver keys as the caller just read them (readGitConfig), else read here.
 */
export async function ensureMergeDrivers(root: string, config?: ReadonlyMap<string, string | null>): Promise<void> {
  try {
    installDriverConfig(root, config);
  } catch {
    // A config git cannot write: merges fall back to text, and the commit that follows says why it failed.
  }
  const file = join(root, ATTRIBUTES_FILE);
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // none yet
  }
  const next = withAttributeLines(text);
  if (next === null) return;
  // An operator's uncommitted edit of .gitattributes is theirs to commit: leave it for now.
  if (await attributesEdited(root)) return;
  await runMutation(root, { op: MERGE_DRIVERS_OP, paths: [ATTRIBUTES_FILE], author: {} }, async (m) => {
    m.willWrite([ATTRIBUTES_FILE]);
    writeFileSync(file, next);
    return { message: 'register the merge drivers for topic notes and manifests in .gitattributes\n\n`tkoma-ref sync` merges them field by field; a clone without the drivers merges them as text.', value: null };
  });
}
