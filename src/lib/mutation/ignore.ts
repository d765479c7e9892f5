/**
 * The root's `.gitignore` keeps the derived state out of git with `/.tkoma/`: anchored, so it
 * matches the root's own `.tkoma/` only. Roots made before carry `.tkoma/`, which matches at every
 * depth and kept the files of a fetched repository's own `.tkoma/` folders out of every commit;
 * the next mutation on such a root rewrites the line and commits those files with it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { git } from '../root-git.js';
import { runMutation } from './run.js';

export const STATE_IGNORE_LINE = '/.tkoma/';
const UNANCHORED = /^\s*\.tkoma\/?\s*$/;

/** Rewrites an unanchored `.tkoma/` line of the root's .gitignore as one commit; a no-op (one read) otherwise. */
export async function anchorStateIgnore(root: string): Promise<void> {
  const file = join(root, '.gitignore');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  if (!text.split('\n').some((l) => UNANCHORED.test(l))) return;
  // An operator's uncommitted edit of .gitignore is theirs to commit: leave it (the commit-time
  // manifest check still keeps every fetched file tracked).
  if ((await git(root, ['status', '--porcelain', '--', '.gitignore'])).trim() !== '') return;
  const nested = await ignoredReferenceFiles(root);
  await runMutation(root, { op: 'anchor-ignore', paths: ['.gitignore', ...nested], author: {} }, async (m) => {
    m.willWrite(['.gitignore']);
    writeFileSync(file, text.split('\n').map((l) => (UNANCHORED.test(l) ? STATE_IGNORE_LINE : l)).join('\n'));
    if (nested.length > 0) m.willTrack(nested);
    return {
      message: `anchor .tkoma/ in .gitignore to the root${nested.length ? `, and add ${nested.length} fetched file${nested.length === 1 ? '' : 's'} it kept out` : ''}\n\nA fetched repository's own .tkoma/ folders are reference files, not tkoma-ref state.`,
      value: null,
    };
  });
}

/** Untracked, ignored files under a `.tkoma/` folder inside a topic that its manifest lists. */
async function ignoredReferenceFiles(root: string): Promise<string[]> {
  const ignored = (await git(root, ['ls-files', '-o', '-i', '--exclude-standard', '-z', '--', 'references'])).split('\0').filter((p) => /^references\/[^/]+\/(?:.*\/)?\.tkoma\//.test(p));
  const out: string[] = [];
  const manifests = new Map<string, Set<string>>();
  for (const p of ignored) {
    const [, id, rest] = /^references\/([^/]+)\/(.*)$/.exec(p)!;
    if (!manifests.has(id)) {
      const paths = new Set<string>();
      try {
        for (const line of readFileSync(join(root, 'references', id, '.tkoma-files.jsonl'), 'utf8').split('\n')) {
          try {
            const rec = JSON.parse(line) as { path?: unknown };
            if (typeof rec.path === 'string') paths.add(rec.path);
          } catch {
            // not a record
          }
        }
      } catch {
        // no manifest: not a topic's file
      }
      manifests.set(id, paths);
    }
    if (manifests.get(id)!.has(rest)) out.push(p);
  }
  return out;
}
