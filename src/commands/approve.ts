import { Args } from '@oclif/core';

import { renderRequest } from '../cli/approvals.js';
import { BaseCommand } from '../cli/base.js';
import type { ApprovalRecord } from '../lib/approval/requests.js';

export default class Approve extends BaseCommand<typeof Approve> {
  static summary = 'Approve a pending fetch (from `tkoma-ref approvals`): the ghost\'s identical request then proceeds, once.';
  static description = 'The approval is bound to exactly what the request named (sources, refs, paths, caps); a changed request asks again. It is used by the first identical request and expires with the request (7 days after it was asked).';
  static args = { id: Args.string({ description: 'Request id (8 hex characters, from `tkoma-ref approvals`)', required: true }) };
  static examples = ['<%= config.bin %> approve 3f9c2a1b', '<%= config.bin %> approve 3f9c2a1b --json'];

  protected async execute(): Promise<ApprovalRecord> {
    const { decideRequest } = await import('../lib/approval/requests.js');
    return decideRequest(this.root(), String(this.args.id), 'approved', { by: 'operator' });
  }

  protected renderHuman(r: ApprovalRecord): string {
    return `Approved ${r.request_id}: the ghost's identical request now proceeds (once).\n${renderRequest(r)}`;
  }
}
