/**
 * Phase 1's answer to a `topic create` nobody has approved yet: what the sources hold, what the
 * caps would leave out, the estimate, and how to approve (a pending request the operator decides,
 * or in token mode a token bound to the request). Nothing is fetched or written but the request.
 */
import { recordRequest } from '../approval/requests.js';
import { approvalLine, issueToken } from '../approval/token.js';
import type { ApprovalEstimate } from '../estimate/estimate.js';
import { estimateFor, workOf } from '../estimate/for-request.js';
import type { Limits } from '../safety/limits.js';
import type { ApprovalMode } from '../store/config.js';
import type { CreateOptions } from './create.js';
import { probeSources, type SourceDetails } from './create-probe.js';
import { capsPreview } from './fetch-limits.js';
import type { CreateRequest } from './request.js';
import { type SkipReport, skipReport } from './skip-report.js';
import { approvalSummary } from './summary.js';

export interface ApprovalRequired {
  status: 'approval_required';
  reason: 'REFERENCE_TOPIC_CREATE';
  topic_id: string;
  title: string;
  summary: string;
  /** The line gateways look for; also printed on stderr. */
  approval_line: string;
  sources: SourceDetails[];
  /** Who approves: `operator` (a pending request, no token) or `token` (`[approval] mode`). */
  approval_mode: ApprovalMode;
  /** Operator mode: the pending request the operator decides with `tkoma-ref approve ID` / `deny ID`. */
  request_id?: string;
  /** Token mode only: approves this exact request, once. */
  token?: string;
  expires_at: string;
  hint: string;
  /** The caps the fetch will apply, and what they would leave out as far as the probes can tell. */
  limits: Limits;
  caps: { would_skip: Record<string, number>; notes: string[] };
  /** What the fetch would leave out, per reason and per folder (as far as the probe can tell before the blobs). */
  skipped: SkipReport;
  /** Chunks, time to searchable and to full vectors with the recorded embedder (src/lib/estimate/). */
  estimate?: ApprovalEstimate;
}

/** Phase 1: the sources probed, and the request recorded for the operator (or a token issued). */
export async function phaseOne(root: string, req: CreateRequest, ask: { canonical: string; mode: ApprovalMode; request_hash: string }, opts: CreateOptions): Promise<ApprovalRequired> {
  const { limits, probed } = await probeSources(root, req, opts.progress, opts.limits);
  const details = probed.map((p) => p.details);
  const summary = approvalSummary(details.map((d, i) => ({ ...d, filtered: !!req.sources[i].paths })));
  const estimate = await estimateFor(root, workOf(probed));
  const common = {
    status: 'approval_required' as const,
    reason: 'REFERENCE_TOPIC_CREATE' as const,
    topic_id: req.topic_id,
    title: req.title,
    summary,
    approval_line: approvalLine(summary),
    sources: details,
    approval_mode: ask.mode,
  };
  const rest = { limits, caps: capsPreview(details), skipped: skipReport(probed.flatMap((p) => p.skipped)), ...(estimate ? { estimate } : {}) };
  if (ask.mode === 'token') {
    const { token, expires_at } = await issueToken(root, ask.canonical);
    const hint = 'ask the operator; on approval run the same request again with --approve <token> (it approves this request once); if denied, retry with `paths` (README.md, docs/, examples/)';
    return { ...common, token, expires_at, hint, ...rest };
  }
  if (opts.record === false) return { ...common, expires_at: new Date().toISOString(), hint: 'answer the prompt', ...rest };
  const r = await recordRequest(root, {
    request_hash: ask.request_hash,
    topic_id: req.topic_id,
    title: req.title,
    summary,
    sources: details,
    ...(estimate ? { estimate } : {}),
    requested_by: { ...opts.author, via: opts.via ?? 'cli' },
  });
  const hint = `nothing was fetched. The operator decides: \`tkoma-ref approvals\`, then \`tkoma-ref approve ${r.request_id}\` or \`tkoma-ref deny ${r.request_id} --note …\`. Then run the identical request again: it proceeds once approved, or answers APPROVAL_DENIED (then retry with \`paths\`: README.md, docs/, examples/)`;
  return { ...common, request_id: r.request_id, expires_at: r.expires_at, hint, ...rest };
}
