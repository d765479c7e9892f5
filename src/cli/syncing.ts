/**
 * `sync`: the work from parsed flags and its rendering, with no oclif import, so the start-up fast
 * path (cli/fast.ts) runs `sync --json` as the oclif command (commands/sync.ts) does.
 */
import { EXIT } from '../lib/errors.js';
import type { Progress } from '../lib/progress.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import type { SyncResult } from '../lib/sync/sync.js';

export interface SyncFlags {
  json?: boolean;
  root?: string;
  'dry-run': boolean;
  continue: boolean;
  embedder?: string;
}

export async function runSync(f: SyncFlags, progressFor: () => Promise<Progress>): Promise<SyncResult> {
  const root = requireRoot(resolveRootPath(f.root));
  const { syncRoot } = await import('../lib/sync/sync.js');
  return syncRoot(root, { dryRun: f['dry-run'], continue: f.continue, progress: await progressFor(), embedderFlag: f.embedder });
}

export function syncExitCode(r: SyncResult): number {
  return r.conflicts.length > 0 ? EXIT.CONFLICT : EXIT.OK;
}

export function renderSync(r: SyncResult): string {
  const topics = (t: SyncResult['pulled']['topics']): string => {
    const parts = [t.added.length && `added ${t.added.join(', ')}`, t.changed.length && `changed ${t.changed.join(', ')}`, t.removed.length && `removed ${t.removed.join(', ')}`].filter(Boolean);
    return parts.length ? ` (${parts.join('; ')})` : '';
  };
  const n = (k: number): string => `${k} commit${k === 1 ? '' : 's'}`;
  const lines: string[] = [];
  if (r.status === 'dry_run') lines.push(`Dry run against ${r.upstream}: nothing changed.`);
  lines.push(`${r.status === 'dry_run' ? 'Would pull' : 'Pulled'} ${n(r.pulled.commits.length)} from ${r.upstream}${topics(r.pulled.topics)}`);
  lines.push(`${r.status === 'dry_run' ? 'Would push' : 'Pushed'} ${n(r.pushed.commits.length)}${topics(r.pushed.topics)}`);
  if (r.merged.topics.length) lines.push(`Merged by themselves: ${r.merged.topics.join(', ')}${r.merged.converged.length ? ` (fetched on both sides, newer fetch kept: ${r.merged.converged.join(', ')})` : ''}`);
  if (r.merged.resolved?.length) lines.push(`Merged with your resolution: ${r.merged.resolved.join(', ')}`);
  if (r.index.synced.length || r.index.removed.length) lines.push(`Index: synced ${r.index.synced.length} topic(s)${r.index.removed.length ? `, removed ${r.index.removed.length}` : ''}`);
  for (const w of [...r.warnings, ...r.index.warnings]) lines.push(`warning: ${w}`);
  if (r.conflicts.length) {
    lines.push(`CONFLICTS (${r.conflicts.length}), left in git for you:`);
    for (const c of r.conflicts) lines.push(`  ${c.path}: ${c.reason}`);
    lines.push('Resolve them (edit, or `git checkout --ours/--theirs <path>`; `git add`), then `tkoma-ref sync --continue`. `git merge --abort` drops the merge.');
  } else if (r.status === 'up_to_date') lines.push('Already up to date.');
  return lines.join('\n');
}
