/**
 * Knowledge roots for tests that need one but do not test `init`. The real binary runs `init`
 * and the operator's settings commit once per `vitest run` (test/helpers/global-setup.ts gives
 * the folder); every root of every test file is a copy of that folder. A copy costs milliseconds
 * where `init` and a commit cost about half a second of CPU, and it is byte for byte the root they
 * would have made (`init` records no path of its own).
 */
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { inject } from 'vitest';

import { allowLocalSources, cli, setApprovalMode } from './fixtures.js';

let template: Promise<string> | undefined;

/**
 * The run's template: `init` + allowLocalSources, built by the first test file that asks (in its
 * own folder, then renamed into place, so a file running at the same time in another worker sees
 * either no template or a whole one; if both build, the second rename fails and its copy goes).
 */
function suiteTemplate(): Promise<string> {
  template ??= (async () => {
    const base = inject('rootTemplates');
    if (!base) throw new Error('no rootTemplates folder: run the tests through vitest.config.ts (its globalSetup)');
    const done = join(base, 'init-allowed');
    if (existsSync(done)) return done;
    const building = mkdtempSync(join(base, 'building-'));
    const root = join(building, 'root');
    const r = await cli(['init', '--json'], { root });
    if (r.code !== 0) throw new Error(`init failed: ${r.stdout}${r.stderr}`);
    allowLocalSources(root);
    try {
      renameSync(root, done);
    } catch (err) {
      if (!existsSync(done)) throw err;
    }
    rmSync(building, { recursive: true, force: true });
    return done;
  })();
  return template;
}

/** Makes `root` as `init` + allowLocalSources (+ setApprovalMode) would; `root` must not exist. */
export async function freshRoot(root: string, opts: { approval?: 'operator' | 'token' } = {}): Promise<void> {
  const from = await suiteTemplate();
  if (existsSync(root)) throw new Error(`${root} exists already`);
  cpSync(from, root, { recursive: true });
  if (opts.approval) setApprovalMode(root, opts.approval);
}
