/**
 * Every failure a user can meet is a TkomaError with a stable code. Commands render it as
 * `{"error": {"code", "message", ...details}}` under --json, or one readable line otherwise,
 * and exit with the code's exit status. Codes and exit statuses are documented in README.md;
 * never renumber them.
 */

export const EXIT = {
  OK: 0,
  ERROR: 1, // unexpected failure (a bug); still no stack trace unless TKOMA_REF_DEBUG=1
  INVALID_INPUT: 2, // bad flags, bad JSON, bad enum value, bad URL, bad path
  NOT_FOUND: 3, // unknown topic, unknown file, a file the fetch skipped
  APPROVAL_REQUIRED: 4, // topic create phase 1: nothing written, ask the operator
  SOURCE_FAILED: 5, // every source failed, or nothing could be fetched
  CONFLICT: 6, // topic exists, lock held, root not initialised / already initialised
  DAMAGED: 7, // hand-broken topic.md, corrupt state the tool cannot repair by itself
  UNAVAILABLE: 8, // a required provider (embedder, git binary) is not usable
  READ_ONLY: 9, // the knowledge root cannot be written (read-only mount, permissions)
  DISK_FULL: 10, // no space left (ENOSPC) or quota exceeded (EDQUOT)
  GIT_FAILED: 11, // a git command failed (a hook, commit signing, a damaged repository)
  DECLINED: 12, // the operator answered no (a terminal prompt, `deny`, an elicitation): nothing was written
  ROOT_BUSY: 13, // the root's git is mid-operation (detached HEAD, merge, rebase, unmerged paths): nothing was written
  NOT_ALLOWED: 14, // refused by the root's policy (network allow list, local roots): nothing was sent or written
} as const;

export const ERROR_CODES = {
  INVALID_INPUT: EXIT.INVALID_INPUT,
  INVALID_JSON: EXIT.INVALID_INPUT,
  INVALID_ENUM: EXIT.INVALID_INPUT,
  INVALID_URL: EXIT.INVALID_INPUT,
  UNSUPPORTED_SCHEME: EXIT.INVALID_INPUT,
  INVALID_PATH: EXIT.INVALID_INPUT,
  INVALID_REF: EXIT.INVALID_INPUT,
  INVALID_TOKEN: EXIT.INVALID_INPUT,
  CONFIRMATION_REQUIRED: EXIT.INVALID_INPUT,
  UNKNOWN_COMMAND: EXIT.INVALID_INPUT,
  TOPIC_NOT_FOUND: EXIT.NOT_FOUND,
  APPROVAL_NOT_FOUND: EXIT.NOT_FOUND,
  FILE_NOT_FOUND: EXIT.NOT_FOUND,
  SKIPPED: EXIT.NOT_FOUND,
  APPROVAL_REQUIRED: EXIT.APPROVAL_REQUIRED,
  SOURCE_UNREACHABLE: EXIT.SOURCE_FAILED,
  FETCH_FAILED: EXIT.SOURCE_FAILED,
  EMPTY_FETCH: EXIT.SOURCE_FAILED,
  UNDECODABLE_TEXT: EXIT.SOURCE_FAILED,
  TOPIC_EXISTS: EXIT.CONFLICT,
  ROOT_NOT_INITIALISED: EXIT.CONFLICT,
  ROOT_EXISTS: EXIT.CONFLICT,
  LOCKED: EXIT.CONFLICT,
  NO_REMOTE: EXIT.CONFLICT,
  APPROVAL_EXPIRED: EXIT.CONFLICT,
  MALFORMED_TOPIC: EXIT.DAMAGED,
  DAMAGED_STATE: EXIT.DAMAGED,
  EMBEDDER_UNAVAILABLE: EXIT.UNAVAILABLE,
  GIT_UNAVAILABLE: EXIT.UNAVAILABLE,
  READ_ONLY: EXIT.READ_ONLY,
  DISK_FULL: EXIT.DISK_FULL,
  GIT_FAILED: EXIT.GIT_FAILED,
  DECLINED: EXIT.DECLINED,
  APPROVAL_DENIED: EXIT.DECLINED,
  ROOT_BUSY: EXIT.ROOT_BUSY,
  NOT_ALLOWED: EXIT.NOT_ALLOWED,
  INTERNAL: EXIT.ERROR,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class TkomaError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'TkomaError';
    this.code = code;
    this.details = details;
  }

  get exitCode(): number {
    return ERROR_CODES[this.code];
  }

  toJSON(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

/** Wraps anything thrown into a TkomaError so no caller ever has to render a raw Error. */
export function asTkomaError(err: unknown): TkomaError {
  if (err instanceof TkomaError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return environmentError((err as NodeJS.ErrnoException | null)?.code, message) ?? damagedStateError(err) ?? new TkomaError('INTERNAL', message);
}

/**
 * A file where the tool's `.tkoma/` folder (or a folder in it) belongs, or a folder where one of
 * its files belongs: DAMAGED_STATE naming the path, not INTERNAL. Nothing the tool wrote is
 * removed here: the operator moves the odd entry away.
 */
function damagedStateError(err: unknown): TkomaError | null {
  const e = err as NodeJS.ErrnoException | null;
  const path = [e?.path, (e as { dest?: string } | null)?.dest].find((p) => typeof p === 'string' && /[\\/]\.tkoma([\\/]|$)/.test(p));
  if (!path || !['EEXIST', 'ENOTDIR', 'EISDIR', 'ELOOP'].includes(e?.code ?? '')) return null;
  const at = path.replace(/([\\/]\.tkoma)[\\/].*$/, '$1');
  return new TkomaError('DAMAGED_STATE', `the tool's state under ${at} is damaged (${e!.code} at ${path}): move the odd entry away: the index under .tkoma/ is derived and is rebuilt (\`tkoma-ref index rebuild\`)`, {
    path,
    errno: e!.code,
  });
}

/**
 * A failure of the machine rather than of the tool, by errno (or by the text a child process such
 * as git printed): READ_ONLY, DISK_FULL, or null when it is neither.
 */
export function environmentError(errno: string | undefined, message: string): TkomaError | null {
  if (errno === 'EROFS' || errno === 'EACCES' || errno === 'EPERM' || /Read-only file system|Permission denied/.test(message)) {
    return new TkomaError('READ_ONLY', `cannot write (the knowledge root is read-only or not writable): ${message}`, { errno: errno ?? null });
  }
  if (errno === 'ENOSPC' || errno === 'EDQUOT' || /No space left on device|Disk quota exceeded/.test(message)) {
    return new TkomaError('DISK_FULL', `out of disk space: ${message}`, { errno: errno ?? null });
  }
  return null;
}
