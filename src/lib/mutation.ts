/**
 * The front door of mutations: every change to a knowledge root goes through `runMutation`
 * (mutation/run.ts), journaled (mutation/journal.ts) so that recovery (mutation/recover.ts) can
 * undo exactly what the tool wrote when a writer fails or dies, and nothing of the operator's.
 * `crashPoint` (mutation/crash.ts) is the crash tests' hook. Read
 * docs/concepts/locking-and-recovery.md before changing any of it. Only what callers outside
 * mutation/ use is re-exported here; the rest stays inside.
 */
export { crashPoint } from './mutation/crash.js';
export { assertNoPendingInit, beginInitJournal, endInitJournal, pendingInit, stagingPath } from './mutation/journal.js';
export { recoverIfNeeded } from './mutation/recover.js';
export { runMutation } from './mutation/run.js';
