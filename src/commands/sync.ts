import { BaseCommand, oclifFlags } from '../cli/base.js';
import { SYNC_SPEC } from '../cli/spec.js';
import { renderSync, runSync, type SyncFlags, syncExitCode } from '../cli/syncing.js';
import { EXIT } from '../lib/errors.js';
import type { SyncResult } from '../lib/sync/sync.js';

// The work is in cli/syncing.ts, which the start-up fast path runs without oclif.
export default class Sync extends BaseCommand<typeof Sync> {
  static summary = "Share the knowledge root through its git remote: fetch, merge (topic notes and manifests field by field), push, re-index what changed.";
  static description = `An operator's command. The remote is the branch's upstream, else \`origin\`. Refuses (ROOT_BUSY, status ${EXIT.ROOT_BUSY}) on a detached HEAD, an operation in progress, unmerged paths or uncommitted changes. Conflicts stay in git for you to resolve (exit status ${EXIT.CONFLICT}); then \`tkoma-ref sync --continue\`.`;
  static examples = ['<%= config.bin %> sync', '<%= config.bin %> sync --dry-run', '<%= config.bin %> sync --continue --json'];
  static flags = oclifFlags(SYNC_SPEC);

  protected async execute(): Promise<SyncResult> {
    return runSync(this.flags as SyncFlags, () => this.progress());
  }

  protected exitCodeFor(r: SyncResult): number {
    return syncExitCode(r);
  }

  protected renderHuman(r: SyncResult): string {
    return renderSync(r);
  }
}
