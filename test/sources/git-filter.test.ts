import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_FILE_BYTES, languageOf, looksBinary, skipReason } from '../../src/lib/sources/git-filter.js';

const text = new TextEncoder().encode('fn main() {}\n');

describe('skipReason', () => {
  it.each([
    ['src/lib.rs', null],
    ['README.md', null],
    ['docs/build-guide.md', null],
    ['src/builder/mod.rs', null],
    ['Cargo.toml', null],
    ['.git/config', 'vcs'],
    ['sub/.hg/store', 'vcs'],
    ['node_modules/a/index.js', 'node_modules'],
    ['packages/x/node_modules/a/index.js', 'node_modules'],
    ['vendor/github.com/x/y.go', 'vendored'],
    ['third_party/zlib/zlib.h', 'vendored'],
    ['web/bower_components/x.js', 'vendored'],
    ['.yarn/releases/yarn.cjs', 'vendored'],
    ['dist/index.js', 'generated'],
    ['packages/ui/build/out.js', 'generated'],
    ['target/debug/foo.d', 'generated'],
    ['out/x.txt', 'generated'],
    ['coverage/lcov.info', 'generated'],
    ['static/app.min.js', 'generated'],
    ['static/app.min.css', 'generated'],
    ['static/app.js.map', 'generated'],
    ['api/service.pb.go', 'generated'],
    ['api/service_pb2.py', 'generated'],
    ['src/schema_generated.rs', 'generated'],
    ['package-lock.json', 'lockfile'],
    ['web/yarn.lock', 'lockfile'],
    ['pnpm-lock.yaml', 'lockfile'],
    ['Cargo.lock', 'lockfile'],
    ['poetry.lock', 'lockfile'],
    ['go.sum', 'lockfile'],
    ['composer.lock', 'lockfile'],
    ['Gemfile.lock', 'lockfile'],
    ['flake.lock', 'lockfile'],
    ['anything.lock', 'lockfile'],
    ['assets/logo.PNG', 'binary'],
    ['fonts/a.woff2', 'binary'],
    ['lib/x.so', 'binary'],
    ['model.onnx', 'binary'],
  ])('%s → %s', (path, reason) => {
    expect(skipReason(path, 10, text)).toBe(reason);
  });

  it('skips files over the size limit, default 1 MiB', () => {
    expect(skipReason('a.txt', DEFAULT_MAX_FILE_BYTES)).toBeNull();
    expect(skipReason('a.txt', DEFAULT_MAX_FILE_BYTES + 1)).toBe('too_large');
    expect(skipReason('a.txt', 101, undefined, { maxFileBytes: 100 })).toBe('too_large');
    expect(skipReason('a.txt', 100, undefined, { maxFileBytes: 100 })).toBeNull();
  });

  it('ignores the size rule when the size is unknown', () => {
    expect(skipReason('a.txt', Number.NaN)).toBeNull();
    expect(skipReason('a.txt', -1)).toBeNull();
  });

  it('detects binary content by a NUL byte in the first 8 KB only', () => {
    const early = new Uint8Array(100);
    early.fill(65);
    early[50] = 0;
    expect(skipReason('data.xyz', 100, early)).toBe('binary');
    const late = new Uint8Array(9000).fill(65);
    late[8500] = 0;
    expect(skipReason('data.xyz', 9000, late)).toBeNull();
    expect(looksBinary(new Uint8Array(0))).toBe(false);
  });

  it('reports symlinks first, whatever the name', () => {
    expect(skipReason('README.md', 10, text, { isSymlink: true })).toBe('symlink');
    expect(skipReason('node_modules/x', 10, text, { isSymlink: true })).toBe('symlink');
  });
});

describe('languageOf', () => {
  it.each([
    ['src/lib.rs', 'Rust'],
    ['src/a.ts', 'TypeScript'],
    ['src/a.tsx', 'TypeScript'],
    ['a.mjs', 'JavaScript'],
    ['README.md', 'Markdown'],
    ['docs/x.mdx', 'MDX'],
    ['a.py', 'Python'],
    ['main.go', 'Go'],
    ['x.h', 'C'],
    ['x.hpp', 'C++'],
    ['Dockerfile', 'Dockerfile'],
    ['Makefile', 'Makefile'],
    ['CMakeLists.txt', 'CMake'],
    ['Cargo.toml', 'TOML'],
    ['LICENSE', undefined],
    ['.gitignore', undefined],
    ['x.unknownext', undefined],
  ])('%s → %s', (path, lang) => {
    expect(languageOf(path)).toBe(lang);
  });
});
