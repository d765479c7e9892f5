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
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

import { TkomaError } from '../errors.js';
import { type CommitAuthor, commitStaged, forceAdd, git, hasStaged, indexEntries, stageAll } from '../root-git.js';
import { commandLine, withLock } from '../lock.js';
import { assertRootIdle } from '../root-state.js';
import { crashPoint } from './crash.js';
import { anchorStateIgnore } from './ignore.js';
import { checkRelPath, type Journal, journalFile, newJournal, removeJournal, saveIndex, saveWrite, writeJournal } from './journal.js';
import { active, recoverRoot, restore } from './recover.js';
import { ensureMergeDrivers, MERGE_DRIVERS_OP } from '../sync/install.js';

export interface MutationSpec {
  op: string;
  topicId?: string;
  /** What the mutation is about (default: the topic's folder): a commit touching these after HEAD means it landed. */
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
  /** The written files' blobs are already in the object store (adoptPacks): stage them without the bulk check-in. */
  blobsStored(): void;
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
      const paths = spec.paths ?? [`references/${spec.topicId}`];
      if (useGit) {
        recoverRoot(root);
        // Never into an operator's merge, rebase, … nor onto a detached HEAD (ROOT_BUSY).
        assertRootIdle(root, paths);
        if (spec.op !== 'anchor-ignore') await anchorStateIgnore(root);
        if (spec.op !== 'anchor-ignore' && spec.op !== MERGE_DRIVERS_OP) await ensureMergeDrivers(root);
      }
      const file = journalFile(root, spec.op);
      let journal: Journal | null = null;
      const tracked: string[] = [];
      let blobsStored = false;
      const begin = (): Journal => {
        if (!journal) {
          journal = { ...newJournal(root, spec.op, spec.topicId ?? null, paths, command), writes: [] };
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
          tracked.push(...relPaths.map(checkRelPath));
        },
        blobsStored: () => {
          blobsStored = true;
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
            // Again just before the commit: the operator may have started a merge meanwhile.
            assertRootIdle(root, scope);
            j.staged = scope;
            j.index = saveIndex(root, spec.op, await indexEntries(root, scope));
            writeJournal(root, j);
            await stageAll(root, written, { blobsStored });
            if (tracked.length > 0) await forceAdd(root, tracked);
            if (spec.topicId && scope.includes(`references/${spec.topicId}`)) await trackManifest(root, `references/${spec.topicId}`);
            if (await hasStaged(root, scope)) {
              crashPoint(`${spec.op}:staged`);
              commit = await commitStaged(root, out.message, spec.author, scope);
            }
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

/**
 * Every file the topic's manifest lists (and topic.md, the manifest) is in the commit, whatever
 * a .gitignore says: a fetched repository's own ignore files, or an operator's rule, must not
 * silently keep reference files out of the history (a clone would then lack them).
 */
async function trackManifest(root: string, dir: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(join(root, dir, '.tkoma-files.jsonl'), 'utf8');
  } catch {
    return;
  }
  const wanted = new Set([`${dir}/topic.md`, `${dir}/.tkoma-files.jsonl`, `${dir}/.tkoma-skipped.jsonl`]);
  for (const line of text.split('\n')) {
    try {
      const rec = JSON.parse(line) as { path?: unknown };
      if (typeof rec.path === 'string') wanted.add(`${dir}/${rec.path}`);
    } catch {
      // a damaged line names no file
    }
  }
  const tracked = new Set((await git(root, ['ls-files', '-z', '--', dir])).split('\0'));
  const missing = [...wanted].filter((p) => !tracked.has(p) && existsSync(join(root, p)));
  if (missing.length > 0) await forceAdd(root, missing);
}
