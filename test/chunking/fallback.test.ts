import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkCode } from '../../src/lib/chunking/code.js';
import { chunkFile, chunkLines } from '../../src/lib/chunking/index.js';
import { expectWellFormed, uncoveredLines } from '../helpers/chunking.js';

const tmp = mkdtempSync(join(tmpdir(), 'tkoma-chunk-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const numbered = (n: number, width = 30): string =>
  Array.from({ length: n }, (_, i) => `line ${i + 1} ${'x'.repeat(width)}`).join('\n');

describe('chunkLines', () => {
  it('makes bounded, overlapping windows that cover every line', () => {
    const content = numbered(200);
    const chunks = chunkLines('data/log.txt', content, { windowLines: 40, overlapLines: 5, maxChars: 100_000 });
    expectWellFormed(content, chunks, 'data/log.txt');
    expect(uncoveredLines(content, chunks)).toEqual([]);
    for (const c of chunks) expect(c.endLine - c.startLine + 1).toBeLessThanOrEqual(40);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i - 1].endLine - chunks[i].startLine + 1).toBe(5);
    expect(chunks.every((c) => c.kind === 'window')).toBe(true);
    expect(chunks[0].title).toBe('log.txt:1-40');
  });

  it('bounds windows by maxChars too and cuts over-long lines into pieces', () => {
    const long = 'word '.repeat(1000);
    const content = `${numbered(50)}\n${long}\n${numbered(10)}`;
    const chunks = chunkLines('x.json', content, { maxChars: 500 });
    expectWellFormed(content, chunks);
    expect(uncoveredLines(content, chunks)).toEqual([]);
    expect(chunks.every((c) => c.text.length <= 500)).toBe(true);
    expect(chunks.filter((c) => c.startLine === 51 && c.endLine === 51).length).toBeGreaterThanOrEqual(10);
    expect(chunks[0]).toMatchObject({ role: 'code', language: 'json' });
  });

  it('gives nothing for blank content and skips blank windows', () => {
    expect(chunkLines('a.txt', '\n\n   \n')).toEqual([]);
    const content = `a\n${'\n'.repeat(200)}b`;
    const chunks = chunkLines('a.cfg', content, { windowLines: 10, overlapLines: 0 });
    expect(chunks.map((c) => c.text)).toEqual(['a', 'b']);
  });
});

describe('code fallbacks', () => {
  const ts = 'export function a(): number {\n  return 1;\n}\n\nexport class B {\n  m(): void {}\n}\n';

  it('windows a language without a grammar', async () => {
    const chunks = await chunkCode('x.cobol', numbered(100), 'cobol', { windowLines: 30 });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.kind === 'window' && c.language === 'cobol' && c.role === 'code')).toBe(true);
    expect(uncoveredLines(numbered(100), chunks)).toEqual([]);
    // A language id is never turned into a path outside the grammar folder.
    expect((await chunkCode('x.ts', ts, '../typescript')).every((c) => c.kind === 'window')).toBe(true);
  });

  it('windows when the grammar file is broken, and keeps working afterwards', async () => {
    const dir = join(tmp, 'broken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tree-sitter-typescript.wasm'), Buffer.from('\0asm not really a grammar'));
    const broken = await chunkCode('a.ts', ts, 'typescript', { grammarDir: dir, minChars: 0 });
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.every((c) => c.kind === 'window')).toBe(true);
    expectWellFormed(ts, broken);
    // A missing grammar file in that folder is the same story.
    expect((await chunkCode('a.go', 'package a\n', 'go', { grammarDir: dir })).map((c) => c.kind)).toEqual(['window']);
    const good = await chunkCode('a.ts', ts, 'typescript', { minChars: 0 });
    expect(good.map((c) => c.symbol)).toEqual(['a', 'B']);
  });

  it('windows with a grammar that crashes while loading (elm from tree-sitter-wasms)', async () => {
    const dir = join(tmp, 'elm');
    mkdirSync(dir);
    copyFileSync(createRequire(import.meta.url).resolve('tree-sitter-wasms/out/tree-sitter-elm.wasm'), join(dir, 'tree-sitter-elm.wasm'));
    const elm = 'module Main exposing (main)\n\nmain =\n    text "hi"\n';
    const chunks = await chunkCode('Main.elm', elm, 'elm', { grammarDir: dir });
    expect(chunks.map((c) => c.kind)).toEqual(['window']);
    expect((await chunkCode('b.ts', ts, 'typescript', { minChars: 0 })).map((c) => c.symbol)).toEqual(['a', 'B']);
  });

  it('windows a file that mostly fails to parse', async () => {
    const prose = Array.from({ length: 40 }, (_, i) => `This is sentence ${i}, which isn't Rust: it's ${'prose '.repeat(8)}!`).join('\n');
    const chunks = await chunkCode('notes.rs', prose, 'rust', { maxChars: 600 });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.kind === 'window')).toBe(true);
    expect(uncoveredLines(prose, chunks)).toEqual([]);
  });

  it('chunkFile dispatches data and unknown files to line windows', async () => {
    const json = JSON.stringify({ a: Array.from({ length: 300 }, (_, i) => i) }, null, 2);
    const chunks = await chunkFile('package.json', json);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.kind === 'window' && c.role === 'code' && c.language === 'json')).toBe(true);
    const html = await chunkFile('page.html', '<html><body><p>Hello</p></body></html>');
    expect(html[0]).toMatchObject({ role: 'docs', kind: 'window' });
    expect(await chunkFile('empty.ts', '   \n')).toEqual([]);
  });
});
