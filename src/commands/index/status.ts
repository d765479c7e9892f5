import { BaseCommand, oclifFlags } from '../../cli/base.js';
import { renderIndexStatus, runIndexStatus } from '../../cli/index-status.js';
import { INDEX_STATUS_SPEC } from '../../cli/spec.js';

// The work is in cli/index-status.ts, which the start-up fast path runs without oclif.
export default class IndexStatus extends BaseCommand<typeof IndexStatus> {
  static summary = 'Files, chunks, vectors, embedder and pending work of the derived index.';
  static description = 'Pending work is what the next sync (any search, `watch`, or `index rebuild`) would redo: files added, changed or removed since the index was built.';
  static examples = ['<%= config.bin %> index status', '<%= config.bin %> index status --json'];
  static flags = oclifFlags(INDEX_STATUS_SPEC);

  protected async execute(): Promise<unknown> {
    return runIndexStatus(this.flags);
  }

  protected renderHuman(s: Record<string, unknown>): string {
    return renderIndexStatus(s);
  }
}
