import { existsSync, statSync } from 'node:fs';
import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { TkomaError } from '../errors.js';
import { commitAll, git, headCommit } from '../root-git.js';
import { withLock } from '../lock.js';
import { assertNoPendingInit, beginInitJournal, crashPoint, endInitJournal, pendingInit, recoverIfNeeded } from '../mutation.js';

import { isInitialised, referencesDir, STATE_DIR } from './root-path.js';

export { isInitialised, REFERENCES_DIR, referencesDir, resolveRootPath, STATE_DIR, stateDir } from './root-path.js';

/**
 * Fails with ROOT_NOT_INITIALISED unless `root` is a knowledge root made by `init`. Every command
 * that touches a root comes through here, so this is also where leftovers of a crashed writer are
 * cleaned up (cheap when there are none: one readdir).
 */
export function requireRoot(root: string): string {
  if (!isInitialised(root)) {
    throw new TkomaError('ROOT_NOT_INITIALISED', `no knowledge root at ${root}: run \`tkoma-ref init\` first (or pass --root)`, {
      root,
    });
  }
  assertNoPendingInit(root);
  recoverIfNeeded(root);
  return root;
}

/** The package's own folder (holds knowledge/ and default-prompts/), found from this file. */
export function packageDir(): string {
  // dist/lib/store/root.js or src/lib/store/root.ts: three levels up is the package.
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

export interface InitResult {
  root: string;
  created: boolean;
  commit: string | null;
}

/** Entries that may exist in a folder before `init` (the lock and state folder, an empty repository). */
const PRE_INIT = new Set(['.git', STATE_DIR]);

async function assertEmptyFolder(root: string): Promise<void> {
  if (!existsSync(root)) return;
  if (!statSync(root).isDirectory()) throw new TkomaError('ROOT_EXISTS', `${root} exists and is not a directory`, { root });
  const entries = (await readdir(root)).filter((e) => !PRE_INIT.has(e));
  if (entries.length > 0) {
    throw new TkomaError('ROOT_EXISTS', `${root} is not empty and is not a tkoma-ref knowledge root; choose an empty folder`, { root });
  }
}

/**
 * Creates a knowledge root from the `knowledge/` template plus the default skill, as one commit.
 * An existing, initialised root is left alone (created: false); a non-empty folder that is not a
 * root is refused so we never commit somebody's unrelated files. Runs under the write lock and
 * journals itself: an init that was killed is resumed by the next `init`.
 */
export async function initRoot(root: string): Promise<InitResult> {
  if (isInitialised(root) && !pendingInit(root)) return { root, created: false, commit: null };
  if (!pendingInit(root)) {
    try {
      await assertEmptyFolder(root);
    } catch (err) {
      // A concurrent init may have started or finished since the first check: the files are
      // then its own, and the check under the lock below decides.
      if (!pendingInit(root) && !isInitialised(root)) throw err;
    }
  }
  await mkdir(root, { recursive: true });
  return withLock(root, 'write', async () => {
    const resuming = pendingInit(root);
    if (!resuming) {
      if (isInitialised(root)) return { root, created: false, commit: null };
      await assertEmptyFolder(root);
    }
    beginInitJournal(root);
    const pkg = packageDir();
    await cp(join(pkg, 'knowledge'), root, { recursive: true });
    crashPoint('init:copied');
    await mkdir(referencesDir(root), { recursive: true });
    const keep = join(referencesDir(root), '.gitkeep');
    if (!existsSync(keep)) await writeFile(keep, '');
    const skillDir = join(root, 'skills', 'reference-researcher');
    await mkdir(skillDir, { recursive: true });
    await cp(join(pkg, 'default-prompts', 'skills', 'reference-researcher', 'SKILL.md'), join(skillDir, 'SKILL.md'));
    // Idempotent, so a resumed init also repairs a repository whose `git init` was cut short.
    await git(root, ['init', '-q', '-b', 'main']);
    // The merge drivers of topic notes and manifests (sync): committed patterns, this clone's commands.
    const { ATTRIBUTE_LINES, installDriverConfig } = await import('../sync/drivers.js');
    await writeFile(join(root, '.gitattributes'), `${ATTRIBUTE_LINES.join('\n')}\n`);
    installDriverConfig(root);
    crashPoint('init:before-commit');
    const commit = (await commitAll(root, 'init knowledge root', {})) ?? headCommit(root);
    crashPoint('init:committed');
    endInitJournal(root);
    return { root, created: true, commit };
  });
}
