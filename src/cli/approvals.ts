/**
 * Words for the operator: one approval request, every URL in full and local paths marked. Also
 * `approve` and `deny` themselves, with no oclif import, so the start-up fast path (cli/fast.ts)
 * runs them as the oclif commands (commands/approve.ts, deny.ts) do.
 */
import type { ApprovalRecord, ListedRecord } from '../lib/approval/requests.js';
import { TkomaError } from '../lib/errors.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import type { SourceDetails } from '../lib/topics/create-probe.js';
import { countOf, formatBytes } from '../lib/topics/summary.js';

function sourceLine(s: SourceDetails): string {
  if (s.type === 'web' && s.crawl?.bound) return `crawl ${s.url}: ${s.crawl.bound}`;
  if (s.type === 'web') return `web page ${s.url} (host ${s.host ?? '?'})`;
  const ref = s.ref ?? s.default_branch;
  const size = [s.file_count !== undefined ? countOf(s.file_count, 'file') : null, typeof s.total_bytes === 'number' ? formatBytes(s.total_bytes) : null].filter(Boolean).join(', ');
  return `${s.type === 'npm' ? 'npm ' : ''}${s.display_name ?? s.url}${s.type === 'git' && ref ? ` @ ${ref}` : ''}${s.paths ? ` (paths: ${s.paths.join(', ')})` : ''}${size ? `: ${size}` : ''}`;
}

export function renderRequest(r: ListedRecord): string {
  const who = [r.requested_by.ghost, r.requested_by.model ? `model ${r.requested_by.model}` : null].filter(Boolean).join(', ');
  const est = r.estimate?.summary;
  const lines = [
    `${r.request_id}  ${r.state.toUpperCase()}  ${r.topic_id} ('${r.title}')`,
    `  asked ${r.requested_at} by ${who || 'an unnamed ghost'} via ${r.requested_by.via}; expires ${r.expires_at}`,
    ...r.sources.map((s) => `  - ${sourceLine(s)}`),
    ...(est ? [`  estimate: ${est}`] : []),
  ];
  if (r.decided_at) lines.push(`  ${r.state === 'denied' ? 'denied' : 'approved'} ${r.decided_at} by ${r.decided_by}${r.note ? `: "${r.note}"` : ''}${r.used_at ? `; used ${r.used_at}` : ''}`);
  if (r.state === 'pending') lines.push(`  tkoma-ref approve ${r.request_id}    tkoma-ref deny ${r.request_id} --note "…"`);
  return lines.join('\n');
}

const MAX_NOTE = 2000;

interface DecideFlags {
  json?: boolean;
  root?: string;
  note?: string;
}

export async function runDecide(f: DecideFlags, requestId: string, decision: 'approved' | 'denied'): Promise<ApprovalRecord> {
  const note = decision === 'denied' ? f.note?.trim() : undefined;
  if (note && note.length > MAX_NOTE) throw new TkomaError('INVALID_INPUT', `--note is at most ${MAX_NOTE} characters (got ${note.length})`, { field: 'note' });
  const { decideRequest } = await import('../lib/approval/requests.js');
  return decideRequest(requireRoot(resolveRootPath(f.root)), requestId, decision, { by: 'operator', ...(note ? { note } : {}) });
}

export function renderDecision(r: ApprovalRecord): string {
  return r.state === 'denied'
    ? `Denied ${r.request_id}: the ghost's identical request now answers APPROVAL_DENIED${r.note ? ` with your note` : ''}.\n${renderRequest(r)}`
    : `Approved ${r.request_id}: the ghost's identical request now proceeds (once).\n${renderRequest(r)}`;
}
