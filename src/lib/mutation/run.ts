/**
 * The lifecycle every change to a knowledge root goes through, so a crash, a failed commit or a
 * parallel caller can never leave half of one behind nor take an operator's work with it:
 *
 *   write lock → recover leftovers of dead writers → (fn checks) → journal → (fn writes, each
 *   declared first with ctx.willWrite or ctx.setAside) → stage → commit → unjournal
 *
 * On failure (here, or in the next command after a SIGKILL) recovery undoes exactly what the
 * journal says the tool wrote: see recover.ts and docs/concepts/locking-and-recovery.md.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

import { appendAll } from '../append.js';
import { TkomaError } from '../errors.js';
import { configBool, readGitConfig } from '../git-config.js';
import { adoptPacks, type CommitAuthor, headAndPackDir, indexEntries } from '../root-git.js';
import { commandLine, withLock } from '../lock.js';
import { assertRootIdle, readRootGitState } from '../root-state.js';
import { commitOntoBranch } from './commit.js';
import { holdPoint } from '../hold.js';
import { crashPoint } from './crash.js';
import { anchorStateIgnore } from './ignore.js';
import { checkRelPath, type Journal, journalFile, newJournal, removeJournal, saveIndex, saveWrite, writeJournal } from './journal.js';
import { active, recoverRoot, restore } from './recover.js';
import { DRIVER_CONFIG_KEYS } from '../sync/drivers.js';
import { ensureMergeDrivers, MERGE_DRIVERS_OP } from '../sync/install.js';

export interface MutationSpec {
  op: string;
  topicId?: string;
  /** What the mutation is about (default: the topic's folder): the git-state guard checks them for unmerged entries; a swap (setAside) commits them whole. */
  paths?: string[];
  author: CommitAuthor;
  command?: string;
  /** Skip the commit (a root without git, used by index-only tests). */
  noGit?: boolean;
}

export interface MutationContext {
  /**
   * Call before the first write to each path (relative to the root): saves what it holds now
   * (bytes, or "absent") with the journal, so recovery can put exactly that back. Reads and checks
   * before it need no undo, so a failing check never touches anything. The commit stages exactly
   * the declared paths.
   */
  willWrite(relPaths: string[]): void;
  /**
   * Record that the original folder (`paths[0]`) is about to be moved to `dir`; call before moving
   * it. On failure the folder is moved back as it was, operator's uncommitted edits and all; the
   * commit then stages the whole folder.
   */
  setAside(dir: string): void;
  /** Paths the tool writes nothing to but must commit even when a .gitignore rule matches them (force-added). */
  willTrack(relPaths: string[]): void;
  /**
   * Moves the packs under `dir` into the root's object store (root-git.ts adoptPacks); when any
   * is, the written files' blobs are stored and are staged without the bulk check-in.
   */
  adoptPacks(dir: string): Promise<void>;
}

export interface MutationOutcome<T> {
  /** Commit message; null when nothing changed (no commit). */
  message: string | null;
  value: T;
}

export interface MutationResult<T> {
  value: T;
  commit: string | null;
}

/** lock → recover → (fn checks) → journal → (fn writes) → commit → unjournal; on failure the tool's writes are undone. */
export async function runMutation<T>(root: string, spec: MutationSpec, fn: (ctx: MutationContext) => Promise<MutationOutcome<T>>): Promise<MutationResult<T>> {
  const command = spec.command ?? commandLine();
  return withLock(
    root,
    'write',
    async () => {
      crashPoint(`${spec.op}:locked`);
      const useGit = !spec.noGit && existsSync(join(root, '.git'));
      let branch: string | null = null;
      let parent: string | null = null;
      let parentTree: string | null = null;
      let packDir: string | null = null;
      let sign = false;
      const paths = spec.paths ?? [`references/${spec.topicId}`];
      if (useGit) {
        recoverRoot(root);
        // Never into an operator's merge, rebase, … nor onto a detached HEAD (ROOT_BUSY).
        assertRootIdle(root, paths);
        if (spec.op !== 'anchor-ignore') await anchorStateIgnore(root);
        // The config this mutation reads, in one git process (it was three: each driver's
        // command and commit.gpgSign); read once under the write lock, used for the commit too.
        const config = readGitConfig(root, [...DRIVER_CONFIG_KEYS, 'commit.gpgsign']);
        if (spec.op !== 'anchor-ignore' && spec.op !== MERGE_DRIVERS_OP) await ensureMergeDrivers(root, config);
        sign = configBool(config.get('commit.gpgsign'));
        // The branch the commit must land on, and its tip and tree as the mutation starts (with the
        // pack folder in the same git process: adoptPacks asked for it in one of its own).
        branch = readRootGitState(root, { unmerged: false }).branch;
        ({ head: parent, tree: parentTree, packDir } = headAndPackDir(root));
      }
      const file = journalFile(root, spec.op);
      let journal: Journal | null = null;
      const tracked: string[] = [];
      let blobsStored = false;
      const begin = (): Journal => {
        if (!journal) {
          journal = { ...newJournal(root, spec.op, spec.topicId ?? null, paths, command, parent), writes: [] };
          active.add(file);
          writeJournal(root, journal);
          crashPoint(`${spec.op}:journaled`);
        }
        return journal;
      };
      const ctx: MutationContext = {
        willWrite: (relPaths) => {
          if (!useGit) return;
          const j = begin();
          for (const p of relPaths.map(checkRelPath)) {
            if (j.writes!.some((w) => w.path === p)) continue;
            j.writes!.push(saveWrite(root, spec.op, p, j.writes!.length));
            writeJournal(root, j);
          }
        },
        willTrack: (relPaths) => {
          if (!useGit) return;
          begin();
          appendAll(tracked, relPaths.map(checkRelPath));
        },
        adoptPacks: async (dir) => {
          if (await adoptPacks(root, dir, packDir)) blobsStored = true;
        },
        setAside: (dir) => {
          mkdirSync(dirname(dir), { recursive: true });
          if (!useGit) return;
          const j = begin();
          j.aside = relative(root, dir);
          writeJournal(root, j);
        },
      };
      try {
        let commit: string | null = null;
        let value: T;
        try {
          const out = await fn(ctx);
          value = out.value;
          if (out.message !== null && useGit) {
            const j = begin();
            // A folder moved aside is replaced (or removed) as a whole; otherwise exactly the files written.
            const written = j.aside ? paths : j.writes!.map((w) => w.path);
            const scope = [...written, ...tracked];
            if (scope.length === 0) throw new TkomaError('INTERNAL', `${spec.op} changed files it did not declare (willWrite)`);
            crashPoint(`${spec.op}:before-commit`);
            // The operator may have started a merge meanwhile: commitOntoBranch asks again (the
            // same assertRootIdle of the same scope) under git's index lock, before anything of
            // git's moves; asking here too cost a `git ls-files -u` per mutation and caught nothing more.
            j.staged = scope;
            // Git's index as it was, for recovery of a commit that landed before git's index followed it.
            j.index = saveIndex(root, spec.op, await indexEntries(root, scope));
            writeJournal(root, j);
            crashPoint(`${spec.op}:staged`);
            await holdPoint(`${spec.op}:staged`); // tests act as the operator racing the commit here
            commit = await commitOntoBranch(root, {
              branch: branch!,
              parent,
              parentTree,
              written,
              tracked,
              ...(spec.topicId && scope.includes(`references/${spec.topicId}`) ? { topicDir: `references/${spec.topicId}` } : {}),
              blobsStored,
              sign,
              message: out.message,
              author: spec.author,
              beforeMove: (c) => {
                j.branch = branch!;
                j.commit = c;
                writeJournal(root, j);
              },
            });
            crashPoint(`${spec.op}:committed`);
          }
        } catch (err) {
          if (journal) {
            try {
              restore(root, journal);
              removeJournal(root, spec.op);
            } catch {
              // Left journaled: the next command retries the restore.
            }
          }
          throw err;
        }
        const aside = (journal as Journal | null)?.aside;
        if (journal) removeJournal(root, spec.op);
        if (aside) await rm(join(root, aside), { recursive: true, force: true });
        return { value, commit };
      } finally {
        active.delete(file);
      }
    },
    { command },
  );
}
