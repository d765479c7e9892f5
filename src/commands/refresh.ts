import { BaseCommand, oclifArgs, oclifFlags } from '../cli/base.js';
import { type RefreshFlags, type RefreshOutput, renderRefresh, runRefresh } from '../cli/refreshing.js';
import { REFRESH_SPEC } from '../cli/spec.js';

// The work is in cli/refreshing.ts, which the start-up fast path runs without oclif.
export default class Refresh extends BaseCommand<typeof Refresh> {
  static summary = 'Re-fetch tracked sources (same ref; pinned commits stay), apply changes, reindex: one commit per topic.';
  static strict = false;
  static args = oclifArgs(REFRESH_SPEC);
  static description = '--dry-run fetches into a temporary folder and reports what would be added, changed, removed and skipped, with the re-indexing estimate; the topic, the index and git stay untouched.';
  static examples = ['<%= config.bin %> refresh topic-dioxus-ui', '<%= config.bin %> refresh --stale --dry-run', '<%= config.bin %> refresh --all --json'];
  static flags = oclifFlags(REFRESH_SPEC);

  protected async execute(): Promise<RefreshOutput> {
    return runRefresh(this.flags as RefreshFlags, this.positional, () => this.progress());
  }

  protected renderHuman(r: RefreshOutput): string {
    return renderRefresh(r);
  }
}
