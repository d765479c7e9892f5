/**
 * Operator approval over MCP. Without elicitation, `reference_topic_create` answers phase 1
 * (`approval_required`, a token, the APPROVAL_REQUIRED line) exactly like `topic create --json`;
 * the ghost's host shows it to the operator and the ghost calls again with `approval_token`.
 * When the client declares the elicitation capability, the server asks the operator itself:
 * the summary and a cost estimate, approve or deny. Approved: the phase-1 token runs phase 2
 * (so the approval stays bound to exactly that request). Denied: an `approval_denied` error
 * result that tells the ghost to retry with `paths`, as the seed describes. Dismissed, or a client
 * that fails to ask: the plain `approval_required` answer, so the host's own approval still works.
 */
import type { ApprovalRequired } from '../topics/create.js';
import { countOf, formatBytes } from '../topics/summary.js';

/** Mean characters per chunk and whole-create speed, measured by bench/throughput.ts (node_modules corpus, this class of machine). */
const BYTES_PER_CHUNK = 750;
const CHUNKS_PER_FILE = 5.9;
const CREATE_FILES_PER_S = 278;
/** use-lite measured ~12 chunks/s; other embedders differ, so this is only shown as an order of magnitude. */
const EMBED_CHUNKS_PER_S = 12;

export interface CostEstimate {
  files: number;
  bytes: number | null;
  chunks: number;
  /** Fetch + chunk + lexical index, seconds (network time not included). */
  index_seconds: number;
  /** Background vector building, seconds, when an embedder is in use. */
  vector_seconds: number | null;
  text: string;
}

function human(seconds: number): string {
  if (seconds < 60) return `~${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 3600) return `~${Math.round(seconds / 60)} min`;
  return `~${(seconds / 3600).toFixed(1)} h`;
}

/** A rough cost of phase 2 from the phase-1 metadata. Pure. */
export function estimateCost(a: Pick<ApprovalRequired, 'sources'>, embedder: string | null): CostEstimate {
  let files = 0;
  let bytes: number | null = 0;
  for (const s of a.sources) {
    const capped = Object.values(s.capped ?? {}).reduce((n, v) => n + v, 0);
    files += Math.max(0, (s.file_count ?? 0) - capped);
    if (s.type === 'git') bytes = typeof s.total_bytes === 'number' && bytes !== null ? bytes + s.total_bytes : null;
  }
  const chunks = Math.max(files, Math.round(bytes !== null && bytes > 0 ? bytes / BYTES_PER_CHUNK : files * CHUNKS_PER_FILE));
  const indexSeconds = files / CREATE_FILES_PER_S;
  const vectorSeconds = embedder ? chunks / EMBED_CHUNKS_PER_S : null;
  const parts = [
    `${countOf(files, 'file')}${bytes !== null && bytes > 0 ? `, ${formatBytes(bytes)}` : ''}`,
    `~${countOf(chunks, 'chunk')}`,
    `indexing ${human(indexSeconds)} plus download time`,
  ];
  if (vectorSeconds !== null) parts.push(`vectors (${embedder}) ${human(vectorSeconds)} in the background`);
  return { files, bytes, chunks, index_seconds: Math.round(indexSeconds * 10) / 10, vector_seconds: vectorSeconds === null ? null : Math.round(vectorSeconds), text: parts.join('; ') };
}

/** The message the operator reads in the elicitation dialog. */
export function elicitationMessage(a: ApprovalRequired, cost: CostEstimate, ghost?: string): string {
  const lines = [
    `${ghost ? `${ghost} asks: ` : ''}Create reference topic '${a.title}' (${a.topic_id})?`,
    `Sources: ${a.summary}`,
    ...a.sources.map((s) => `  - ${s.display_name}${s.paths ? ` (paths: ${s.paths.join(', ')})` : ''}${s.type === 'git' && s.default_branch ? ` @ ${s.ref ?? s.default_branch}` : ''}`),
    `Estimated cost: ${cost.text}.`,
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
  estimate: CostEstimate;
  operator_note: string | null;
  hint: string;
}

export function denial(a: ApprovalRequired, cost: CostEstimate, note: string | null): Denial {
  return {
    status: 'approval_denied',
    reason: 'REFERENCE_TOPIC_CREATE',
    topic_id: a.topic_id,
    title: a.title,
    summary: a.summary,
    sources: a.sources,
    estimate: cost,
    operator_note: note,
    hint: 'the operator denied this fetch (usually: too large). Retry reference_topic_create with a smaller scope: the same git source with `paths`, prioritising README.md, docs/, examples/ and key src/ folders; a new scope is asked for approval again.',
  };
}
