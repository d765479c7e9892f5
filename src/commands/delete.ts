import { BaseCommand, oclifArgs, oclifFlags } from '../cli/base.js';
import { type DeleteFlags, renderDelete, runDelete } from '../cli/managing.js';
import { DELETE_SPEC } from '../cli/spec.js';
import { EXIT } from '../lib/errors.js';
import type { DeleteResult } from '../lib/topics/manage.js';

// The work is in cli/managing.ts, which the start-up fast path runs without oclif.
export default class Delete extends BaseCommand<typeof Delete> {
  static summary = 'Delete a topic: its files and index entries, as one commit (history keeps it).';
  static description = `Asks "[y/N]" on a terminal (answering no exits with status ${EXIT.DECLINED}, DECLINED); scripts and ghosts pass --yes (without a terminal and without --yes: CONFIRMATION_REQUIRED, status ${EXIT.INVALID_INPUT}).`;
  static args = oclifArgs(DELETE_SPEC);
  static examples = ['<%= config.bin %> delete topic-dioxus-ui', '<%= config.bin %> delete dioxus-ui --yes', '<%= config.bin %> delete topic-dioxus-ui --yes --json'];
  static flags = oclifFlags(DELETE_SPEC);

  protected async execute(): Promise<DeleteResult> {
    return runDelete(this.flags as DeleteFlags, String(this.args.id), { canAsk: () => this.canAsk(), confirm: (q) => this.confirm(q) });
  }

  protected renderHuman(r: DeleteResult): string {
    return renderDelete(r);
  }
}
