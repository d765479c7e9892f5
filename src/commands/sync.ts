import { Flags } from '@oclif/core';

import { BaseCommand, embedderFlag } from '../cli/base.js';
import { EXIT } from '../lib/errors.js';
import type { SyncResult } from '../lib/sync/sync.js';

export default class Sync extends BaseCommand<typeof Sync> {
  static summary = "Share the knowledge root through its git remote: fetch, merge (topic notes and manifests field by field), push, re-index what changed.";
  static description = `An operator's command. The remote is the branch's upstream, else \`origin\`. Refuses (ROOT_BUSY, status ${EXIT.ROOT_BUSY}) on a detached HEAD, an operation in progress, unmerged paths or uncommitted changes. Conflicts stay in git for you to resolve (exit status ${EXIT.CONFLICT}); then \`tkoma-ref sync --continue\`.`;
  static examples = ['<%= config.bin %> sync', '<%= config.bin %> sync --dry-run', '<%= config.bin %> sync --continue --json'];
  static flags = {
    'dry-run': Flags.boolean({ description: 'Fetch, then say what would be pulled, pushed and merged; change nothing.', default: false }),
    continue: Flags.boolean({ description: 'Finish a sync that stopped on conflicts, once you resolved them (`git add`).', default: false }),
    ...embedderFlag,
  };

  protected async execute(): Promise<SyncResult> {
    const root = this.root();
    const { syncRoot } = await import('../lib/sync/sync.js');
    return syncRoot(root, { dryRun: this.flags['dry-run'], continue: this.flags.continue, progress: await this.progress(), embedderFlag: this.flags.embedder });
  }

  protected exitCodeFor(r: SyncResult): number {
    return r.conflicts.length > 0 ? EXIT.CONFLICT : EXIT.OK;
  }

  protected renderHuman(r: SyncResult): string {
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
}
