import { describe, expect, it } from 'vitest';
import { chunkCode } from '../../src/lib/chunking/code.js';
import { chunkFile, languageForPath } from '../../src/lib/chunking/index.js';
import { FIXTURES } from './fixtures.js';
import { bySymbol, expectExactCover, expectWellFormed } from '../helpers/chunking.js';

describe.each(FIXTURES)('chunkCode $language', (fx) => {
  it('maps the path to the grammar', () => {
    expect(languageForPath(fx.path)).toBe(fx.language);
  });

  it('finds each symbol with its kind, one chunk per symbol when nothing merges', async () => {
    const chunks = await chunkFile(fx.path, fx.code, { minChars: 0 });
    expectWellFormed(fx.code, chunks, fx.path);
    expectExactCover(fx.code, chunks);
    for (const [symbol, kind] of Object.entries(fx.symbols)) {
      const hits = bySymbol(chunks, symbol).filter((c) => c.kind === kind);
      expect(hits.length, `${symbol} as ${kind} in ${JSON.stringify(chunks.map((c) => [c.symbol, c.kind]))}`).toBeGreaterThan(0);
      expect(hits[0].title).toContain(symbol);
    }
    for (const c of chunks) {
      // Test blocks inside a source file (a Rust `mod tests`) are ranked as tests.
      expect(c.role).toBe(c.kind === 'test' ? 'test' : 'code');
      expect(c.language).toBe(fx.language);
    }
  });

  it('keeps the leading doc comment / decorator with its symbol', async () => {
    const chunks = await chunkFile(fx.path, fx.code, { minChars: 0 });
    const [symbol, line] = fx.docOf;
    const owner = bySymbol(chunks, symbol)[0];
    expect(owner, symbol).toBeDefined();
    expect(owner.text.split('\n')).toContain(line);
    // The start line moved up to the comment.
    expect(fx.code.split('\n')[owner.startLine - 1]).toBe(owner.text.split('\n')[0]);
  });

  it('merges small neighbours by default and still loses nothing', async () => {
    const fine = await chunkFile(fx.path, fx.code, { minChars: 0 });
    const merged = await chunkFile(fx.path, fx.code);
    expect(merged.length).toBeLessThan(fine.length);
    expectWellFormed(fx.code, merged, fx.path);
    expectExactCover(fx.code, merged);
    // Every symbol is still named by the chunk that holds it.
    for (const symbol of Object.keys(fx.symbols)) expect(merged.some((c) => c.title.includes(symbol))).toBe(true);
  });
});

describe.each(FIXTURES.filter((f) => f.bigClass))('chunkCode $language large class', (fx) => {
  it('splits a class larger than maxChars into a header and methods', async () => {
    const big = fx.bigClass!;
    const chunks = await chunkCode(fx.path, fx.code, fx.language, { maxChars: 200, minChars: 0 });
    expectWellFormed(fx.code, chunks, fx.path);
    expectExactCover(fx.code, chunks);
    const header = chunks.find((c) => c.symbol === big.name && c.kind === big.kind);
    expect(header, JSON.stringify(chunks.map((c) => [c.symbol, c.kind]))).toBeDefined();
    expect(header!.text.length).toBeLessThanOrEqual(200);
    for (const m of big.methods) {
      const hits = bySymbol(chunks, `${big.name}.${m}`);
      expect(hits.length, `${big.name}.${m} in ${JSON.stringify(chunks.map((c) => c.symbol))}`).toBeGreaterThan(0);
      expect(hits.every((c) => c.kind === 'method')).toBe(true);
    }
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(200);
  });
});

describe('chunkCode details', () => {
  it('names Go methods by receiver and C++ out-of-class definitions by class', async () => {
    const go = await chunkCode('a.go', 'package a\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n', 'go', { minChars: 0 });
    expect(go.find((c) => c.symbol === 'Server.Start')?.kind).toBe('method');
    const cpp = await chunkCode('a.cpp', 'void Foo::bar(int x) {\n  x++;\n}\n', 'cpp', { minChars: 0 });
    expect(cpp[0]).toMatchObject({ symbol: 'Foo.bar', kind: 'method' });
  });

  it('keeps Rust attributes and source spelling of impl titles', async () => {
    const fx = FIXTURES.find((f) => f.language === 'rust')!;
    const chunks = await chunkCode(fx.path, fx.code, 'rust', { minChars: 0 });
    const point = chunks.find((c) => c.symbol === 'Point' && c.kind === 'struct')!;
    expect(point.text).toContain('#[derive(Debug, Clone, Copy, PartialEq)]');
    expect(chunks.some((c) => c.title === 'impl fmt::Display for Point')).toBe(true);
  });

  it('splits one oversized function into line windows that keep its name', async () => {
    const body = Array.from({ length: 120 }, (_, i) => `  total += compute(${i}, total);`).join('\n');
    const code = `import { compute } from './c';\n\nexport function huge(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    const chunks = await chunkCode('huge.ts', code, 'typescript', { maxChars: 800 });
    expectWellFormed(code, chunks);
    expectExactCover(code, chunks);
    const parts = bySymbol(chunks, 'huge');
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.every((c) => c.kind === 'function' && c.text.length <= 800)).toBe(true);
    expect(parts[0].title).toMatch(/^function huge \(part 1\/\d+\)$/);
  });

  it('descends into namespaces, #ifdef blocks and C# file-scoped namespaces', async () => {
    const cs = await chunkCode('a.cs', 'namespace A;\n\npublic class B { public void M() {} }\n', 'c_sharp', { minChars: 0 });
    expect(cs.find((c) => c.symbol === 'B')?.kind).toBe('class');
    const c = await chunkCode('a.c', '#ifdef X\nint g(void) { return 1; }\n#endif\n', 'c', { minChars: 0 });
    expect(c.find((x) => x.symbol === 'g')?.kind).toBe('function');
  });

  it('recognises CommonJS exports and prototype methods', async () => {
    const js = 'exports.foo = function () {\n  return 1;\n};\n\nFoo.prototype.bar = function () {\n  return 2;\n};\n';
    const chunks = await chunkCode('a.js', js, 'javascript', { minChars: 0 });
    expect(chunks.map((c) => [c.symbol, c.kind])).toEqual([
      ['foo', 'function'],
      ['Foo.bar', 'method'],
    ]);
  });

  it('cuts a minified one-line file into pieces of that line', async () => {
    const code = 'var a=1;function foo(){return a}function bar(){return foo()+1}'.repeat(80);
    const chunks = await chunkCode('min.js', code, 'javascript', { maxChars: 1000 });
    expect(chunks.length).toBeGreaterThan(3);
    expectWellFormed(code, chunks);
    expectExactCover(code, chunks);
    expect(chunks.every((c) => c.startLine === 1 && c.endLine === 1 && c.text.length <= 1000)).toBe(true);
  });

  it.each([
    ['deploy.sh', 'bash', '#!/bin/bash\n# Deploys the app.\ndeploy() {\n  rsync -a dist/ host:/srv\n}\n\ndeploy\n', 'deploy', 'function'],
    ['Main.kt', 'kotlin', 'class Greeter(val name: String) {\n  fun greet() = "Hi $name"\n}\n', 'Greeter', 'class'],
    ['Main.scala', 'scala', 'object Main {\n  def main(args: Array[String]): Unit = println("hi")\n}\n', 'Main', 'class'],
    ['Point.swift', 'swift', 'struct Point {\n  var x: Double\n  func norm() -> Double { return x }\n}\n', 'Point', 'struct'],
  ])('also chunks %s (%s) by syntax', async (path, lang, code, symbol, kind) => {
    expect(languageForPath(path)).toBe(lang);
    const chunks = await chunkFile(path, code, { minChars: 0 });
    expectWellFormed(code, chunks);
    expect(chunks.find((c) => c.symbol === symbol)?.kind).toBe(kind);
  });

  it('gives no chunks for empty or whitespace-only code', async () => {
    expect(await chunkCode('a.ts', '', 'typescript')).toEqual([]);
    expect(await chunkCode('a.ts', '  \n\n\t\n', 'typescript')).toEqual([]);
  });
});

describe('line endings', () => {
  it('chunks CRLF code with the same symbols and exact lines', async () => {
    const fx = FIXTURES.find((f) => f.language === 'python')!;
    const code = fx.code.replace(/\n/g, '\r\n');
    const chunks = await chunkCode(fx.path, code, 'python', { minChars: 0 });
    expectWellFormed(code, chunks);
    expectExactCover(code, chunks);
    for (const [symbol, kind] of Object.entries(fx.symbols)) expect(bySymbol(chunks, symbol)[0]?.kind).toBe(kind);
  });
});
