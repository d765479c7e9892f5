import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkCode } from '../../src/lib/chunking/code.js';
import { chunkLines, chunkMarkdown } from '../../src/lib/chunking/index.js';
import { FIXTURES } from './fixtures.js';
import { expectExactCover, expectWellFormed, uncoveredLines } from '../helpers/chunking.js';

const word = fc.stringMatching(/^[a-z]{1,10}$/);
const words = (min: number, max: number): fc.Arbitrary<string> => fc.array(word, { minLength: min, maxLength: max }).map((w) => w.join(' '));
const sentence = words(1, 14).map((s) => `${s[0].toUpperCase()}${s.slice(1)}.`);

const mdBlock = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), words(0, 5)).map(([l, t]) => `${'#'.repeat(l)} ${t}`),
  fc.tuple(words(1, 5), fc.constantFrom('=', '-'), fc.integer({ min: 2, max: 20 })).map(([t, c, n]) => `${t}\n${c.repeat(n)}`),
  fc.array(sentence, { minLength: 1, maxLength: 30 }).chain((ss) =>
    fc.boolean().map((wrap) => (wrap ? ss.join('\n') : ss.join(' ')))),
  fc.tuple(fc.constantFrom('```', '~~~', '````'), fc.constantFrom('', 'ts', 'bash'), fc.array(fc.oneof(words(0, 8), words(1, 4).map((w) => `# ${w}`), fc.constant('')), { maxLength: 25 }))
    .map(([f, lang, lines]) => `${f}${lang}\n${lines.join('\n')}\n${f}`),
  fc.array(words(1, 6).map((w) => `- ${w}`), { minLength: 1, maxLength: 8 }).map((l) => l.join('\n')),
  fc.constant('| a | b |\n|---|---|\n| 1 | 2 |'),
);

const markdownDoc = fc.tuple(
  fc.option(words(1, 3).map((t) => `---\ntitle: ${t}\n---\n`), { nil: '' }),
  fc.array(fc.tuple(mdBlock, fc.constantFrom('\n\n', '\n', '\n\n\n')), { maxLength: 30 }),
).map(([fm, blocks]) => ({ fm, doc: fm + blocks.map(([b, sep]) => b + sep).join('') }));

const sizes = fc.record({ maxChars: fc.integer({ min: 80, max: 2000 }), minChars: fc.integer({ min: 0, max: 500 }) });

describe('chunk properties', () => {
  it('markdown: verbatim slices, nothing lost or repeated, fences whole, sizes bounded', () => {
    fc.assert(
      fc.property(markdownDoc, sizes, ({ fm, doc }, opts) => {
        const chunks = chunkMarkdown('doc.md', doc, opts);
        expectWellFormed(doc, chunks, 'doc.md');
        const fmRows = fm ? fm.split('\n').length - 1 : 0;
        expectExactCover(doc, chunks, fm);
        expect(uncoveredLines(doc, chunks, (l) => l <= fmRows)).toEqual([]);
        const max = Math.max(80, opts.maxChars);
        for (const c of chunks) {
          const fences = c.text.split('\n').filter((l) => /^\s*(```|~~~)/.test(l)).length;
          // Generated fences are far below 4 x maxChars only when small; those must stay whole.
          if (c.text.length <= max * 4) expect(fences % 2, c.text).toBe(0);
          if (c.text.length > max) expect(c.text).toMatch(/```|~~~/);
        }
      }),
      { numRuns: 150 },
    );
  });

  const tsFunction = fc.tuple(fc.nat(99), fc.integer({ min: 0, max: 25 }), fc.boolean()).map(([n, body, doc]) =>
    `${doc ? `/** Computes f${n}. */\n` : ''}export function f${n}(a: number): number {\n${Array.from({ length: body }, (_, i) => `  a = a * ${i + 2} + ${n}; // step`).join('\n')}\n  return a;\n}`);
  const tsClass = fc.tuple(fc.nat(99), fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 8 })).map(([n, methods]) =>
    `export class C${n} {\n  private v = ${n};\n\n${methods.map((len, i) => `  m${i}(x: number): number {\n${Array.from({ length: len }, () => '    x += this.v;').join('\n')}\n    return x;\n  }`).join('\n\n')}\n}`);
  const tsStatement = fc.oneof(
    words(1, 3).map((w) => `import { ${w.split(' ').join(', ')} } from './mod';`),
    fc.nat(999).map((n) => `console.log(${n});`),
    words(1, 8).map((w) => `// ${w}`),
    fc.nat(99).map((n) => `export const g${n} = (x: number) => x + ${n};`),
  );
  const tsProgram = fc.array(fc.tuple(fc.oneof(tsFunction, tsClass, tsStatement), fc.constantFrom('\n', '\n\n', '\n\n\n')), { maxLength: 25 })
    .map((parts) => parts.map(([p, sep]) => p + sep).join(''));

  it('code: verbatim slices, nothing lost or repeated, never over maxChars', async () => {
    await fc.assert(
      fc.asyncProperty(tsProgram, sizes, async (code, opts) => {
        const chunks = await chunkCode('gen.ts', code, 'typescript', opts);
        expectWellFormed(code, chunks, 'gen.ts');
        expectExactCover(code, chunks);
        expect(uncoveredLines(code, chunks)).toEqual([]);
        for (const c of chunks) {
          expect(c.text.length).toBeLessThanOrEqual(Math.max(80, opts.maxChars));
          if (c.symbol && !c.title.includes('(part ')) expect(c.text).toContain(c.symbol.split('.').pop());
        }
      }),
      { numRuns: 120 },
    );
  });

  it('code: every fixture language keeps its invariants under any sizes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIXTURES), sizes, async (fx, opts) => {
        const chunks = await chunkCode(fx.path, fx.code, fx.language, opts);
        expectWellFormed(fx.code, chunks, fx.path);
        expectExactCover(fx.code, chunks);
        for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(Math.max(80, opts.maxChars));
      }),
      { numRuns: 150 },
    );
  });

  it('line windows: cover every non-blank line, within the limits', () => {
    const text = fc.array(fc.oneof(words(0, 12), fc.constant(''), fc.nat(400).map((n) => 'z'.repeat(n))), { maxLength: 200 }).map((l) => l.join('\n'));
    const opts = fc.record({
      maxChars: fc.integer({ min: 80, max: 3000 }),
      windowLines: fc.integer({ min: 1, max: 80 }),
      overlapLines: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(
      fc.property(text, opts, (content, o) => {
        const chunks = chunkLines('f.log', content, o);
        expectWellFormed(content, chunks, 'f.log');
        expect(uncoveredLines(content, chunks)).toEqual([]);
        for (const c of chunks) {
          expect(c.text.length).toBeLessThanOrEqual(o.maxChars);
          expect(c.endLine - c.startLine + 1).toBeLessThanOrEqual(o.windowLines);
        }
        for (let i = 1; i < chunks.length; i++) expect(chunks[i].startLine).toBeGreaterThanOrEqual(chunks[i - 1].startLine);
      }),
      { numRuns: 200 },
    );
  });
});
