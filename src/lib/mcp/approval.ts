/**
 * Operator approval over MCP. Without elicitation, `reference_topic_create` answers phase 1
 * (`approval_required`, a token, the APPROVAL_REQUIRED line) exactly like `topic create --json`;
 * the ghost's host shows it to the operator and the ghost calls again with `approval_token`.
 * When the client declares the elicitation capability, the server asks the operator itself:
 * the summary and phase 1's estimate (the one the CLI shows), approve or deny. Approved: the phase-1 token runs phase 2
 * (so the approval stays bound to exactly that request). Denied: an `approval_denied` error
 * result that tells the ghost to retry with `paths`, as the seed describes. Dismissed, or a client
 * that fails to ask: the plain `approval_required` answer, so the host's own approval still works.
 */
import type { ApprovalRequired } from '../topics/create-approval.js';
import type { ApprovalEstimate } from '../estimate/estimate.js';

/** The estimate line every surface shows (src/lib/estimate/): the CLI prints the same summary. */
export function costLine(a: Pick<ApprovalRequired, 'estimate'>): string | null {
  return a.estimate ? a.estimate.summary : null;
}

/** The message the operator reads in the elicitation dialog. */
export function elicitationMessage(a: ApprovalRequired, ghost?: string): string {
  const cost = costLine(a);
  const lines = [
    `${ghost ? `${ghost} asks: ` : ''}Create reference topic '${a.title}' (${a.topic_id})?`,
    `Sources: ${a.summary}`,
    ...a.sources.map((s) => `  - ${s.display_name}${s.paths ? ` (paths: ${s.paths.join(', ')})` : ''}${s.type === 'git' && s.default_branch ? ` @ ${s.ref ?? s.default_branch}` : ''}`),
    ...(cost ? [`Estimated cost: ${cost}.`] : []),
    ...(a.caps.notes.length ? [`Caps: ${a.caps.notes.join('; ')}`] : []),
    'Approve the fetch, or deny it (the ghost will then retry with a smaller scope).',
  ];
  return lines.join('\n');
}

/** The form: one required choice, and an optional note passed back to the ghost. */
export const ELICITATION_SCHEMA = {
  type: 'object' as const,
  properties: {
    decision: {
      type: 'string' as const,
      title: 'Decision',
      description: 'Approve fetching and indexing these sources, or deny.',
      enum: ['approve', 'deny'],
    },
    note: {
      type: 'string' as const,
      title: 'Note to the ghost (optional)',
      description: 'e.g. "only docs/ and examples/"',
    },
  },
  required: ['decision'],
};

export interface Denial {
  status: 'approval_denied';
  reason: 'REFERENCE_TOPIC_CREATE';
  topic_id: string;
  title: string;
  summary: string;
  sources: ApprovalRequired['sources'];
  estimate: ApprovalEstimate | null;
  operator_note: string | null;
  hint: string;
}

export function denial(a: ApprovalRequired, note: string | null): Denial {
  return {
    status: 'approval_denied',
    reason: 'REFERENCE_TOPIC_CREATE',
    topic_id: a.topic_id,
    title: a.title,
    summary: a.summary,
    sources: a.sources,
    estimate: a.estimate ?? null,
    operator_note: note,
    hint: 'the operator denied this fetch (usually: too large). Retry reference_topic_create with a smaller scope: the same git source with `paths`, prioritising README.md, docs/, examples/ and key src/ folders; a new scope is asked for approval again.',
  };
}
