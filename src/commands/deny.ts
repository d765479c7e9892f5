import { renderDecision, runDecide } from '../cli/approvals.js';
import { BaseCommand, oclifArgs, oclifFlags } from '../cli/base.js';
import { DENY_SPEC } from '../cli/spec.js';
import type { ApprovalRecord } from '../lib/approval/requests.js';

// The work is in cli/approvals.ts, which the start-up fast path runs without oclif.
export default class Deny extends BaseCommand<typeof Deny> {
  static summary = 'Deny a pending fetch (from `tkoma-ref approvals`): the ghost\'s identical request answers APPROVAL_DENIED with your note.';
  static description = 'The note reaches the ghost (e.g. "too big: only docs/ and examples/"), which then retries with a smaller scope; that new request is asked for approval again.';
  static args = oclifArgs(DENY_SPEC);
  static examples = ['<%= config.bin %> deny 3f9c2a1b --note "too big: only docs/ and examples/"', '<%= config.bin %> deny 3f9c2a1b --json'];
  static flags = oclifFlags(DENY_SPEC);

  protected async execute(): Promise<ApprovalRecord> {
    return runDecide(this.flags as { note?: string }, String(this.args.id), 'denied');
  }

  protected renderHuman(r: ApprovalRecord): string {
    return renderDecision(r);
  }
}
