import { Flags } from '@oclif/core';

import { renderRequest } from '../cli/approvals.js';
import { BaseCommand } from '../cli/base.js';
import type { ListedRecord } from '../lib/approval/requests.js';

export default class Approvals extends BaseCommand<typeof Approvals> {
  static summary = 'List the fetches ghosts asked for and that wait for your decision (operator approval mode).';
  static description = `Each pending request shows who asked and when, every git URL, local repository and web page in full, sizes and the estimate. Decide with \`tkoma-ref approve ID\` or \`tkoma-ref deny ID --note TEXT\`; the ghost's identical request then proceeds (once) or is told the denial. Requests expire after 7 days. --all also lists approved, denied, used and expired ones.`;
  static examples = ['<%= config.bin %> approvals', '<%= config.bin %> approvals --all --json'];
  static flags = { all: Flags.boolean({ description: 'Also list decided, used and expired requests.', default: false }) };

  protected async execute(): Promise<{ requests: ListedRecord[] }> {
    const { listRequests } = await import('../lib/approval/requests.js');
    return { requests: await listRequests(this.root(), { all: this.flags.all }) };
  }

  protected renderHuman(r: { requests: ListedRecord[] }): string {
    if (r.requests.length === 0) return this.flags.all ? 'No approval requests.' : 'No pending approval requests.';
    const pending = r.requests.filter((q) => q.state === 'pending').length;
    return [`${pending} pending${this.flags.all ? ` (${r.requests.length} listed)` : ''}:`, '', r.requests.map(renderRequest).join('\n\n')].join('\n');
  }
}
