/**
 * Every git process a create starts runs with glibc's malloc keeping its heap
 * (src/lib/git-malloc.ts): a `git` first on PATH notes the GLIBC_TUNABLES each one saw, then runs
 * the real git. (A file:// fetch's upload-pack inherits the fetch's environment; git finds it in
 * its own exec path, so the noting git does not see it start.)
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const KEEP = 'glibc.malloc.trim_threshold=134217728';
const tmp = tmpDir('tkoma-malloc-env-');
afterAll(() => tmp.cleanup());

/** A `git` that appends "<subcommand word> <GLIBC_TUNABLES>" to `log` and hands over to the real one. */
function notingGit(dir: string, log: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do case "$a" in -c|-c*|--*|*=*) ;; *) word="$a"; break;; esac; done\nprintf '%s %s\\n' "$word" "\${GLIBC_TUNABLES-unset}" >> '${log}'\nPATH='${process.env.PATH ?? ''}' exec git "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  return `${bin}:${process.env.PATH ?? ''}`;
}

describe('git processes keep their malloc heap', () => {
  it('a create gives every git the tunable when the operator set none', async () => {
    const repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Up\n\nSome words.\n', 'src/lib.rs': 'pub fn one() -> u32 { 1 }\n' });
    const root = join(tmp.path, 'root');
    await freshRoot(root);
    const log = join(tmp.path, 'git.log');
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Up', '--git', repo.url], { root, env: { PATH: notingGit(tmp.path, log) } });
    expect(r.code, r.stderr).toBe(0);
    const seen = readFileSync(log, 'utf8').trim().split('\n');
    const words = seen.map((l) => l.split(' ')[0]);
    // The fetch, the reading of its blobs and the root's commit all went through the noting git.
    expect(words).toEqual(expect.arrayContaining(['fetch', 'cat-file', 'add', 'commit-tree']));
    for (const line of seen) expect(line.slice(line.indexOf(' ') + 1)).toBe(KEEP);
  });

  it("the operator's own GLIBC_TUNABLES come after ours, so theirs win", async () => {
    const repo = makeRepo(join(tmp.path, 'up2'), { 'README.md': '# Two\n\nMore words.\n' });
    const root = join(tmp.path, 'root2');
    await freshRoot(root);
    const log = join(tmp.path, 'git2.log');
    const own = 'glibc.malloc.trim_threshold=4096';
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Two', '--git', repo.url], { root, env: { PATH: notingGit(join(tmp.path, 'two'), log), GLIBC_TUNABLES: own } });
    expect(r.code, r.stderr).toBe(0);
    const seen = readFileSync(log, 'utf8').trim().split('\n');
    expect(seen.length).toBeGreaterThan(5);
    for (const line of seen) expect(line.slice(line.indexOf(' ') + 1)).toBe(`${KEEP}:${own}`);
  });
});
