/**
 * The commands whose logic lives in src/cli (one function, called by the oclif command and by the
 * start-up fast path alike), as the fast path runs them: the spec both parse with, when a call is
 * left to oclif anyway, and the work. Modules load only for the command run.
 */
import type { ParsedArgv } from './fast.js';
import type { GetFlags } from './getting.js';
import type { DeleteFlags, FileStatusFlags, TopicUpdateFlags } from './managing.js';
import type { RefreshFlags, RefreshOutput } from './refreshing.js';
import type { SyncFlags } from './syncing.js';
import type { TopicCreateFlags } from './creating.js';
import { APPROVE_SPEC, type CommandSpec, DELETE_SPEC, DENY_SPEC, FILE_STATUS_SPEC, GET_SPEC, INDEX_STATUS_SPEC, REFRESH_SPEC, SYNC_SPEC, TOPIC_CREATE_SPEC, TOPIC_UPDATE_SPEC } from './spec.js';

export interface SharedCommand {
  spec: CommandSpec;
  /** False leaves the call to oclif: progress to draw or a question to ask at a terminal. */
  fits?(p: ParsedArgv): boolean;
  run(p: ParsedArgv): Promise<{ result: unknown; render: (r: unknown) => string; exitCode?: number }>;
}

/** Progress is drawn for people: only --json (silent progress) is answered here. */
const jsonOnly = (p: ParsedArgv): boolean => p.flags.json === true;
const silent = async () => (await import('../lib/progress.js')).silentProgress;

export const SHARED: Record<string, SharedCommand> = {
  'topic-create': {
    spec: TOPIC_CREATE_SPEC,
    // Without --json a person may be asked "Approve?" and shown progress: oclif's.
    fits: jsonOnly,
    run: async ({ flags }) => {
      const m = await import('./creating.js');
      const progress = await silent();
      const result = await m.runTopicCreate(flags as unknown as TopicCreateFlags, { canAsk: () => false, confirm: async () => false, progress: async () => progress, approvalText: () => '' });
      return { result, render: () => '', exitCode: m.topicCreateExitCode(result) };
    },
  },
  'topic-update': {
    spec: TOPIC_UPDATE_SPEC,
    run: async ({ flags, args }) => {
      const m = await import('./managing.js');
      const result = await m.runTopicUpdate(flags as TopicUpdateFlags, args[0]);
      return { result, render: (r) => m.renderTopicUpdate(r as typeof result) };
    },
  },
  delete: {
    spec: DELETE_SPEC,
    // BaseCommand.canAsk: without --yes, a person at a terminal is asked; that stays oclif's.
    fits: ({ flags }) => flags.yes === true || flags.json === true || !process.stdin.isTTY || !process.stdout.isTTY,
    run: async ({ flags, args }) => {
      const m = await import('./managing.js');
      const result = await m.runDelete(flags as unknown as DeleteFlags, args[0]!, { canAsk: () => false, confirm: async () => false });
      return { result, render: (r) => m.renderDelete(r as typeof result) };
    },
  },
  'file-status': {
    spec: FILE_STATUS_SPEC,
    run: async ({ flags }) => {
      const m = await import('./managing.js');
      const result = await m.runFileStatus(flags as FileStatusFlags);
      return { result, render: (r) => m.renderFileStatus(r as typeof result) };
    },
  },
  get: {
    spec: GET_SPEC,
    run: async ({ flags }) => {
      const m = await import('./getting.js');
      const result = await m.runGet(flags as GetFlags);
      return { result, render: (r) => m.renderGet(r as typeof result) };
    },
  },
  approve: {
    spec: APPROVE_SPEC,
    run: async ({ flags, args }) => {
      const m = await import('./approvals.js');
      return { result: await m.runDecide(flags as { root?: string }, args[0]!, 'approved'), render: (r) => m.renderDecision(r as Parameters<typeof m.renderDecision>[0]) };
    },
  },
  deny: {
    spec: DENY_SPEC,
    run: async ({ flags, args }) => {
      const m = await import('./approvals.js');
      return { result: await m.runDecide(flags as { root?: string; note?: string }, args[0]!, 'denied'), render: (r) => m.renderDecision(r as Parameters<typeof m.renderDecision>[0]) };
    },
  },
  'index-status': {
    spec: INDEX_STATUS_SPEC,
    run: async ({ flags }) => {
      const m = await import('./index-status.js');
      return { result: await m.runIndexStatus(flags as { root?: string }), render: (r) => m.renderIndexStatus(r as Record<string, unknown>) };
    },
  },
  refresh: {
    spec: REFRESH_SPEC,
    fits: jsonOnly,
    run: async ({ flags, args }) => {
      const m = await import('./refreshing.js');
      return { result: await m.runRefresh(flags as unknown as RefreshFlags, args, silent), render: (r) => m.renderRefresh(r as RefreshOutput) };
    },
  },
  sync: {
    spec: SYNC_SPEC,
    fits: jsonOnly,
    run: async ({ flags }) => {
      const m = await import('./syncing.js');
      const result = await m.runSync(flags as unknown as SyncFlags, silent);
      return { result, render: (r) => m.renderSync(r as typeof result), exitCode: m.syncExitCode(result) };
    },
  },
};
