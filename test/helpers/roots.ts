/**
 * Knowledge roots for tests that need one but do not test `init`. The real binary runs `init`
 * and the operator's settings commit once per test file; every further root is a copy of that
 * folder. A copy costs milliseconds where `init` and a commit cost about a second of CPU, and it
 * is byte for byte the root they would have made (`init` records no path of its own).
 */
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';

import { allowLocalSources, cli, setApprovalMode } from './fixtures.js';

export interface RootMaker {
  /** Makes `root` as `init` + allowLocalSources (+ setApprovalMode) would. */
  make(root: string, opts?: { approval?: 'operator' | 'token' }): Promise<void>;
}

/** Roots made from one `init` under `dir` (a folder the test file removes afterwards). */
export function rootMaker(dir: string): RootMaker {
  const template = join(dir, '.root-template');
  let made: Promise<void> | undefined;
  const makeTemplate = async (): Promise<void> => {
    const r = await cli(['init', '--json'], { root: template });
    if (r.code !== 0) throw new Error(`init failed: ${r.stdout}${r.stderr}`);
    allowLocalSources(template);
  };
  return {
    async make(root, opts = {}) {
      made ??= makeTemplate();
      await made;
      if (existsSync(root)) throw new Error(`${root} exists already`);
      cpSync(template, root, { recursive: true });
      if (opts.approval) setApprovalMode(root, opts.approval);
    },
  };
}
