/**
 * Who may let a `topic create` fetch (`[approval] mode`): the decision before phase 2.
 * - `--yes`: the operator at a shell (a ghost with a shell can do what its operator can; the gate
 *   protects ghosts that reach us through MCP or a gateway: docs/concepts/approval.md).
 * - `operator` (the default): an approval the operator gave with `tkoma-ref approve ID` (or in
 *   the MCP host's dialog) for exactly this request, used once; a denial ends the request.
 * - `token`: a phase-1 token for exactly this request, used once.
 */
import { TkomaError } from '../errors.js';
import { APPROVAL_MODES, type ApprovalMode, readConfig } from '../store/config.js';
import { type ApprovalRecord, claimApproval, findRequest, requestHash } from './requests.js';
import { APPROVAL_REASON, spendToken, verifyToken } from './token.js';

export type Gate =
  | { go: true; approved_by: 'yes' | 'token' | 'operator'; request_id?: string; release: () => Promise<void> }
  | { go: false; mode: ApprovalMode; request_hash: string };

export async function approvalMode(root: string): Promise<ApprovalMode> {
  const mode = (await readConfig(root)).approval?.mode;
  return APPROVAL_MODES.includes(mode as ApprovalMode) ? (mode as ApprovalMode) : 'operator';
}

/** The line a gateway reads on a denial; the operator's note is the reason (the seed's format). */
export function deniedLine(note: string | undefined): string {
  return `APPROVAL_DENIED:${APPROVAL_REASON}:${(note ?? 'denied by the operator').replace(/\s+/g, ' ')}`;
}

export function denialError(r: ApprovalRecord): TkomaError {
  return new TkomaError(
    'APPROVAL_DENIED',
    `the operator denied request ${r.request_id}${r.note ? ` ("${r.note}")` : ''}: nothing was fetched. Retry with a smaller scope (a git source's \`paths\`: README.md, docs/, examples/); a changed request is asked for approval again`,
    { request_id: r.request_id, topic_id: r.topic_id, note: r.note ?? null, decided_at: r.decided_at ?? null, approval_line: deniedLine(r.note) },
  );
}

const NO_RELEASE = async (): Promise<void> => undefined;

export async function approvalGate(root: string, canonical: string, given: { approve?: string; yes?: boolean }): Promise<Gate> {
  if (given.yes) return { go: true, approved_by: 'yes', release: NO_RELEASE };
  const mode = await approvalMode(root);
  if (given.approve) {
    if (mode === 'operator') {
      throw new TkomaError(
        'INVALID_TOKEN',
        'approval token refused: this root approves in operator mode (`[approval] mode` in tkoma-ref.toml), where tokens approve nothing. The operator runs `tkoma-ref approvals` and `tkoma-ref approve ID`; then the identical request proceeds',
        { mode },
      );
    }
    await verifyToken(root, canonical, given.approve);
    return { go: true, approved_by: 'token', release: await spendToken(root, given.approve) };
  }
  const request_hash = requestHash(canonical);
  if (mode === 'operator') {
    const r = await findRequest(root, request_hash);
    if (r?.state === 'denied') throw denialError(r);
    if (r?.state === 'approved') {
      const claimed = await claimApproval(root, r);
      if (claimed) return { go: true, approved_by: 'operator', request_id: r.request_id, release: claimed.release };
    }
  }
  return { go: false, mode, request_hash };
}
