import { Args, Flags } from '@oclif/core';

import { renderRequest } from '../cli/approvals.js';
import { BaseCommand } from '../cli/base.js';
import type { ApprovalRecord } from '../lib/approval/requests.js';
import { TkomaError } from '../lib/errors.js';

const MAX_NOTE = 2000;

export default class Deny extends BaseCommand<typeof Deny> {
  static summary = 'Deny a pending fetch (from `tkoma-ref approvals`): the ghost\'s identical request answers APPROVAL_DENIED with your note.';
  static description = 'The note reaches the ghost (e.g. "too big: only docs/ and examples/"), which then retries with a smaller scope; that new request is asked for approval again.';
  static args = { id: Args.string({ description: 'Request id (8 hex characters, from `tkoma-ref approvals`)', required: true }) };
  static examples = ['<%= config.bin %> deny 3f9c2a1b --note "too big: only docs/ and examples/"', '<%= config.bin %> deny 3f9c2a1b --json'];
  static flags = { note: Flags.string({ description: 'Why, for the ghost (it reads this and retries smaller).' }) };

  protected async execute(): Promise<ApprovalRecord> {
    const note = this.flags.note?.trim();
    if (note && note.length > MAX_NOTE) throw new TkomaError('INVALID_INPUT', `--note is at most ${MAX_NOTE} characters (got ${note.length})`, { field: 'note' });
    const { decideRequest } = await import('../lib/approval/requests.js');
    return decideRequest(this.root(), String(this.args.id), 'denied', { by: 'operator', ...(note ? { note } : {}) });
  }

  protected renderHuman(r: ApprovalRecord): string {
    return `Denied ${r.request_id}: the ghost's identical request now answers APPROVAL_DENIED${r.note ? ` with your note` : ''}.\n${renderRequest(r)}`;
  }
}
