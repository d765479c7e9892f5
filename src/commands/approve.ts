import { renderDecision, runDecide } from '../cli/approvals.js';
import { BaseCommand, oclifArgs, oclifFlags } from '../cli/base.js';
import { APPROVE_SPEC } from '../cli/spec.js';
import type { ApprovalRecord } from '../lib/approval/requests.js';

// The work is in cli/approvals.ts, which the start-up fast path runs without oclif.
export default class Approve extends BaseCommand<typeof Approve> {
  static summary = 'Approve a pending fetch (from `tkoma-ref approvals`): the ghost\'s identical request then proceeds, once.';
  static description = 'The approval is bound to exactly what the request named (sources, refs, paths, caps); a changed request asks again. It is used by the first identical request and expires with the request (7 days after it was asked).';
  static args = oclifArgs(APPROVE_SPEC);
  static examples = ['<%= config.bin %> approve 3f9c2a1b', '<%= config.bin %> approve 3f9c2a1b --json'];
  static flags = oclifFlags(APPROVE_SPEC);

  protected async execute(): Promise<ApprovalRecord> {
    return runDecide(this.flags, String(this.args.id), 'approved');
  }

  protected renderHuman(r: ApprovalRecord): string {
    return renderDecision(r);
  }
}
