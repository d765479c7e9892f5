/**
 * Builds real git repositories for the git-source tests: a `main` and a `dev` branch, an
 * annotated tag `v1.0`, docs/src/examples folders, and one file for every skip rule.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();
}

export function write(root: string, rel: string, data: string | Uint8Array): void {
  const p = join(root, ...rel.split('/'));
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, data);
}

/** Text files a fetch keeps from `main` (v1.0 has the same files with the first README). */
export const KEPT_MAIN: Record<string, string> = {
  'README.md': '# Demo\n\nA demo repository.\n',
  'docs/guide.md': '# Guide\n\nInstall it, then run it.\n',
  'docs/api.md': '# API\n\n`run()` starts everything.\n',
  'src/lib.rs': 'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n',
  'src/main.rs': 'fn main() {\n    println!("{}", demo::add(1, 2));\n}\n',
  'src/util.ts': 'export function twice(n: number): number {\n  return n * 2;\n}\n',
  'examples/hello.rs': 'fn main() {\n    println!("hello");\n}\n',
  'app/[id]/page.tsx': 'export default function Page() {\n  return null;\n}\n',
};

/** What a fetch of `main` skips, and why. */
export const SKIPPED_MAIN: Record<string, string> = {
  'assets/logo.png': 'binary',
  'data/raw.xyz': 'binary',
  'Cargo.lock': 'lockfile',
  'package-lock.json': 'lockfile',
  'node_modules/left-pad/index.js': 'node_modules',
  'dist/app.min.js': 'generated',
  'big.txt': 'too_large',
  'outside-link': 'symlink',
  'docs/escape.md': 'symlink',
};

export const BIG_BYTES = 1024 * 1024 + 100;

export interface Fixture {
  dir: string;
  repo: string;
  url: string;
  /** main at the first commit (= tag v1.0) */
  first: string;
  dev: string;
  cleanup(): void;
}

export function makeFixture(opts: { allowFilter?: boolean } = {}): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'tkoma-git-fixture-'));
  const repo = join(dir, 'demo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  for (const [p, text] of Object.entries(KEPT_MAIN)) write(repo, p, text);
  write(repo, 'assets/logo.png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
  write(repo, 'data/raw.xyz', Buffer.concat([Buffer.from('header'), Buffer.alloc(16), Buffer.from('tail')]));
  write(repo, 'Cargo.lock', '# lock\n[[package]]\nname = "demo"\n');
  write(repo, 'package-lock.json', '{"lockfileVersion": 3}\n');
  write(repo, 'node_modules/left-pad/index.js', 'module.exports = (s) => s;\n');
  write(repo, 'dist/app.min.js', 'var a=1;\n');
  write(repo, 'big.txt', 'x'.repeat(BIG_BYTES - 1) + '\n');
  symlinkSync('/etc/passwd', join(repo, 'outside-link'));
  symlinkSync('../../../../../../etc/hostname', join(repo, 'docs', 'escape.md'));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  const first = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'tag', '-a', 'v1.0', '-m', 'release 1.0');
  git(repo, 'checkout', '-q', '-b', 'dev');
  write(repo, 'docs/dev-only.md', '# Dev only\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'dev work');
  const dev = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-q', 'main');
  if (opts.allowFilter) git(repo, 'config', 'uploadpack.allowFilter', 'true');
  return {
    dir,
    repo,
    url: pathToFileURL(repo).href,
    first,
    dev,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Adds a commit on main that changes README.md; returns the new commit id. */
export function commitOnMain(fx: Fixture, readme: string): string {
  write(fx.repo, 'README.md', readme);
  git(fx.repo, 'commit', '-q', '-am', 'update readme');
  return git(fx.repo, 'rev-parse', 'HEAD');
}

export function tempDir(prefix = 'tkoma-git-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
