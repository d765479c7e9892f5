import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isProsePath, languageForPath, roleForPath } from '../../src/lib/chunking/index.js';

describe('roleForPath', () => {
  it.each([
    'README.md', 'docs/guide.mdx', 'notes.markdown', 'docs/index.rst', 'NOTES.txt', 'manual.adoc',
    'README', 'readme.zh-CN', 'CHANGELOG', 'packages/a/CHANGES.md', 'LICENSE', 'HISTORY.rst',
    'example-com-docs-intro.md', 'docs/overview', 'page.html', 'Documentation/process/howto',
  ])('%s is docs', (p) => {
    expect(roleForPath(p)).toBe('docs');
  });

  it.each([
    'src/main.rs', 'lib/index.ts', 'docs/conf.py', 'docs/_config.yml', 'docs/package.json', 'Makefile',
    'app/models/user.rb', 'include/foo.h', 'Cargo.toml', 'styles/site.css', 'bin/tool', 'history.js',
    'readme.go',
  ])('%s is code', (p) => {
    expect(roleForPath(p)).toBe('code');
  });

  it('sends only prose to the heading chunker', () => {
    expect(isProsePath('docs/guide.md')).toBe(true);
    expect(isProsePath('page.html')).toBe(false);
    expect(isProsePath('docs/api.json')).toBe(false);
  });
});

describe('languageForPath', () => {
  it.each([
    ['a.ts', 'typescript'], ['a.mts', 'typescript'], ['a.tsx', 'tsx'], ['a.js', 'javascript'],
    ['a.cjs', 'javascript'], ['a.jsx', 'javascript'], ['a.py', 'python'], ['a.pyi', 'python'],
    ['a.rs', 'rust'], ['a.go', 'go'], ['A.java', 'java'], ['a.c', 'c'], ['a.h', 'cpp'],
    ['a.cc', 'cpp'], ['a.hpp', 'cpp'], ['a.cs', 'c_sharp'], ['a.rb', 'ruby'], ['Rakefile', 'ruby'],
    ['a.php', 'php'], ['x.sh', 'bash'], ['a.kt', 'kotlin'], ['a.scala', 'scala'], ['a.swift', 'swift'],
    ['dir.v2/A.TS', 'typescript'],
  ])('%s -> %s', (p, lang) => {
    expect(languageForPath(p)).toBe(lang);
  });

  it.each(['README.md', 'a.json', 'a.yaml', 'Makefile', 'a.lua', 'noext', 'a.elm'])('%s has no grammar', (p) => {
    expect(languageForPath(p)).toBeUndefined();
  });
});

describe('module loading', () => {
  it('importing the chunking index does not load web-tree-sitter', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkoma-lazy-'));
    try {
      const log = join(dir, 'resolved.log');
      // A resolve hook records every module the child loads.
      writeFileSync(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';
export async function resolve(spec, ctx, next) { const r = await next(spec, ctx); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`);
      writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
      const entry = pathToFileURL(join(process.cwd(), 'src/lib/chunking/index.ts')).href;
      const script = `const m = await import(${JSON.stringify(entry)});
const chunks = await m.chunkFile('a.md', '# Hi\\n\\nthere\\n');
if (chunks.length !== 1) throw new Error('markdown chunking failed');
const { appendFileSync } = await import('node:fs');
appendFileSync(${JSON.stringify(log)}, 'MARK\\n');
await m.chunkFile('a.ts', 'export const x = 1;\\n');`;
      execFileSync(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', script], {
        cwd: process.cwd(),
        stdio: 'pipe',
      });
      const [before, after] = readFileSync(log, 'utf8').split('MARK\n');
      expect(before).toContain('chunking/index.ts');
      expect(before).not.toContain('web-tree-sitter');
      // ...and a code file does load it, so the check above can tell the difference.
      expect(after).toContain('web-tree-sitter');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
