/**
 * The front door of mutations: every change to a knowledge root goes through `runMutation`
 * (mutation/run.ts), journaled (mutation/journal.ts) so that recovery (mutation/recover.ts) can
 * undo exactly what the tool wrote when a writer fails or dies, and nothing of the operator's.
 * `crashPoint` (mutation/crash.ts) is the crash tests' hook. Read
 * docs/concepts/locking-and-recovery.md before changing any of it.
 */
export { crashPoint } from './mutation/crash.js';
export { anchorStateIgnore, STATE_IGNORE_LINE } from './mutation/ignore.js';
export {
  assertNoPendingInit,
  beginInitJournal,
  endInitJournal,
  type Journal,
  journalDir,
  pendingInit,
  stagingPath,
  stagingRoot,
  type WriteRecord,
} from './mutation/journal.js';
export { recoverIfNeeded, recoverRoot, type RecoveryReport, restore } from './mutation/recover.js';
export { type MutationContext, type MutationOutcome, type MutationResult, type MutationSpec, runMutation } from './mutation/run.js';
