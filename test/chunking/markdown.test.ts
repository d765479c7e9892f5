import { describe, expect, it } from 'vitest';
import { chunkFile, chunkMarkdown } from '../../src/lib/chunking/index.js';
import { groupTitle } from '../../src/lib/chunking/markdown.js';
import { expectExactCover, expectWellFormed, uncoveredLines } from '../helpers/chunking.js';

const para = (words: number, seed = 'alpha'): string =>
  Array.from({ length: words }, (_, i) => (i % 12 === 11 ? `${seed}${i}.` : `${seed}${i}`)).join(' ');

const GUIDE = `# Guide

Welcome to the guide. ${para(40, 'intro')}

## Install

${para(50, 'inst')}

### Linux

Run the package manager:

\`\`\`bash
# this is a shell comment, not a heading
sudo apt install tkoma

tkoma --version
\`\`\`

### macOS

${para(45, 'mac')}

## Usage

${para(60, 'use')}
`;

describe('chunkMarkdown', () => {
  it('titles sections with their heading path', () => {
    const chunks = chunkMarkdown('docs/guide.md', GUIDE, { minChars: 0 });
    expectWellFormed(GUIDE, chunks, 'docs/guide.md');
    expectExactCover(GUIDE, chunks);
    expect(chunks.map((c) => c.title)).toEqual([
      'Guide',
      'Guide > Install',
      'Guide > Install > Linux',
      'Guide > Install > macOS',
      'Guide > Usage',
    ]);
    expect(chunks.every((c) => c.kind === 'section' && c.role === 'docs' && c.language === 'markdown')).toBe(true);
    const linux = chunks[2];
    expect(linux.text.startsWith('### Linux')).toBe(true);
    expect(linux.text).toContain('# this is a shell comment, not a heading');
    expect(GUIDE.split('\n')[linux.startLine - 1]).toBe('### Linux');
  });

  it('merges small sections into neighbours', () => {
    const d = `# D\n\n${para(120, 'd')}\n`;
    const md = `# A\n\nshort a\n\n## B\n\nshort b\n\n## C\n\nshort c\n\n${d}`;
    // D fits alone but not together with A..C, so A..C merge among themselves.
    const chunks = chunkMarkdown('x.md', md, { minChars: 100, maxChars: d.length + 20 });
    expectWellFormed(md, chunks);
    expectExactCover(md, chunks);
    expect(chunks).toHaveLength(2);
    expect(chunks[0].title).toBe('A > B, C');
    expect(chunks[0].text).toContain('short c');
    expect(chunks[1].title).toBe('D');
  });

  it('joins a small trailing section to the one before it', () => {
    const md = `# Big\n\n${para(60)}\n\n## Tail\n\ntiny\n`;
    const chunks = chunkMarkdown('x.md', md, { minChars: 200 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0].title).toBe('Big > Tail');
  });

  it('splits long sections at paragraphs, then sentences, within maxChars', () => {
    const md = `# Long\n\n${para(80, 'p')}\n\n${para(80, 'q')}\n\n${'One sentence here. '.repeat(120)}\n`;
    const chunks = chunkMarkdown('long.md', md, { maxChars: 500, minChars: 0 });
    expectWellFormed(md, chunks);
    expectExactCover(md, chunks);
    expect(chunks.length).toBeGreaterThan(6);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(500);
      expect(c.title).toBe('Long');
    }
    // The heading travels with the first paragraph, never alone.
    expect(chunks[0].text.startsWith('# Long\n\np0')).toBe(true);
    // Sentence cuts end at a sentence end.
    const last = chunks.filter((c) => c.text.includes('One sentence'));
    expect(last.length).toBeGreaterThan(3);
    for (const c of last.slice(0, -1)) expect(c.text.endsWith('here.')).toBe(true);
  });

  it('never cuts a code fence, even one larger than maxChars', () => {
    const code = Array.from({ length: 40 }, (_, i) => `let v${i} = compute(${i}); // step ${i}`).join('\n');
    const md = `# API\n\n${para(30)}\n\n\`\`\`ts\n${code}\n\n${code}\n\`\`\`\n\n${para(30, 'after')}\n`;
    const chunks = chunkMarkdown('api.md', md, { maxChars: 800, minChars: 0 });
    expectWellFormed(md, chunks);
    expectExactCover(md, chunks);
    const fence = chunks.find((c) => c.text.includes('```ts'))!;
    expect(fence.text.trimEnd().endsWith('```')).toBe(true);
    expect(fence.text.length).toBeGreaterThan(800);
    for (const c of chunks) expect((c.text.match(/^```/gm) ?? []).length % 2).toBe(0);
  });

  it('cuts a fence beyond 4 x maxChars at blank lines, keeping the text verbatim', () => {
    const block = Array.from({ length: 8 }, (_, i) => `fn f${i}() -> u32 {\n    ${i}\n}`).join('\n\n');
    const md = `# Huge\n\n\`\`\`rust\n${Array.from({ length: 10 }, () => block).join('\n\n')}\n\`\`\`\n`;
    const chunks = chunkMarkdown('huge.md', md, { maxChars: 300, minChars: 0 });
    expectWellFormed(md, chunks);
    expectExactCover(md, chunks);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(300);
      // Cuts fall between functions, not inside one.
      expect((c.text.match(/\{/g) ?? []).length).toBe((c.text.match(/^\}/gm) ?? []).length);
    }
  });

  it('reads setext headings and skips front matter, using its title', () => {
    const md = `---\ntitle: "The Book"\nweight: 2\n---\n\nPreface text.\n\nChapter One\n===========\n\nIt begins.\n\nScene\n-----\n\nA scene.\n`;
    const chunks = chunkMarkdown('book.md', md, { minChars: 0 });
    expectWellFormed(md, chunks);
    expectExactCover(md, chunks, '---\ntitle: "The Book"\nweight: 2\n---');
    expect(chunks.map((c) => c.title)).toEqual(['The Book', 'Chapter One', 'Chapter One > Scene']);
    expect(chunks.some((c) => c.text.includes('weight'))).toBe(false);
    // TOML front matter, and its title rooting a document without a top-level heading.
    const toml = `+++\ntitle = "Ref"\n+++\n## Intro\n\nHello.\n`;
    expect(chunkMarkdown('ref.md', toml, { minChars: 0 }).map((c) => c.title)).toEqual(['Ref > Intro']);
  });

  it('does not take thematic breaks, tables or lists for setext headings', () => {
    const md = `# T\n\nfirst line\nsecond line\n---\n\n- item\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n`;
    const chunks = chunkMarkdown('t.md', md, { minChars: 0 });
    expect(chunks.map((c) => c.title)).toEqual(['T']);
  });

  it('reads rst sections with their underline styles and literal blocks', () => {
    const rst = `=======\nProject\n=======\n\nIntro.\n\nInstall\n-------\n\nUse pip::\n\n    pip install foo\n\n    Not a title\n    -----------\n\nConfig\n~~~~~~\n\nSet it.\n\nUsage\n-----\n\nRun it.\n`;
    const chunks = chunkMarkdown('docs/index.rst', rst, { minChars: 0 });
    expectWellFormed(rst, chunks);
    expectExactCover(rst, chunks);
    expect(chunks.map((c) => c.title)).toEqual(['Project', 'Project > Install', 'Project > Install > Config', 'Project > Usage']);
    expect(chunks[0].startLine).toBe(1);
    expect(chunks.every((c) => c.language === 'text')).toBe(true);
  });

  it('reads asciidoc headings and keeps listing blocks whole', () => {
    const adoc = `= Manual\n\nIntro.\n\n== Setup\n\n----\n== not a heading\n----\n\n=== Deep\n\nText.\n`;
    const chunks = chunkMarkdown('manual.adoc', adoc, { minChars: 0 });
    expect(chunks.map((c) => c.title)).toEqual(['Manual', 'Manual > Setup', 'Manual > Setup > Deep']);
  });

  it('names the text before the first heading after the file', () => {
    const md = `Some intro.\n\n# Later\n\nBody.\n`;
    expect(chunkMarkdown('notes/README.md', md, { minChars: 0 }).map((c) => c.title)).toEqual(['README.md', 'Later']);
  });

  it('chunkFile sends prose files here and empty files nowhere', async () => {
    expect((await chunkFile('CHANGELOG', '# 1.0\n\nFirst.\n'))[0]).toMatchObject({ title: '1.0', kind: 'section', language: 'text' });
    expect((await chunkFile('docs/page.mdx', '## Hi\n\nthere\n'))[0]).toMatchObject({ title: 'Hi', language: 'markdown' });
    expect(await chunkFile('README.md', '\n \n')).toEqual([]);
  });

  it('covers every non-blank line of a web page saved as markdown', () => {
    const page = `# Title\n\n[Home](/) | [Docs](/docs)\n\n${Array.from({ length: 30 }, (_, i) => `## Section ${i}\n\n${para(20 + (i % 7) * 15, `s${i}`)}\n\n| k | v |\n|---|---|\n| a | ${i} |`).join('\n\n')}\n`;
    const chunks = chunkMarkdown('example-com-docs.md', page);
    expectWellFormed(page, chunks);
    expectExactCover(page, chunks);
    expect(uncoveredLines(page, chunks)).toEqual([]);
    expect(chunks.every((c) => c.text.length <= 1600)).toBe(true);
  });
});

describe('groupTitle', () => {
  it('uses the shared path and lists the headings below it', () => {
    expect(groupTitle([['A', 'B']])).toBe('A > B');
    expect(groupTitle([['A'], ['A', 'B']])).toBe('A > B');
    expect(groupTitle([['A', 'B'], ['A', 'C'], ['A', 'C', 'D']])).toBe('A > B, C');
    expect(groupTitle([['A'], ['B'], ['C'], ['D'], ['E']])).toBe('A, B, C, …');
  });
});

describe('line endings and byte order marks', () => {
  it('reads CRLF files and a leading BOM', () => {
    const md = '\uFEFF# Title\r\n\r\nIntro.\r\n\r\nSub\r\n---\r\n\r\nText.\r\n';
    const chunks = chunkMarkdown('crlf.md', md, { minChars: 0 });
    expectWellFormed(md, chunks);
    expectExactCover(md, chunks);
    expect(chunks.map((c) => c.title)).toEqual(['Title', 'Title > Sub']);
    expect(chunks.every((c) => !c.text.endsWith('\r'))).toBe(true);
  });
});

describe('bare headings never stand alone (issue 12)', () => {
  const sentences = (n: number, seed: string): string => Array.from({ length: n }, (_, i) => `The ${seed} step ${i} explains the retry timing in detail.`).join(' ');
  const headingOnly = (text: string): boolean => text.split('\n').every((l) => l.trim() === '' || /^#{1,6}(\s|$)/.test(l));
  const cases: Record<string, string> = {
    'a heading straight before a subsection too big to share': `## Foo\n\n### Bar\n\n${sentences(40, 'bar')}\n`,
    'a chain of headings before one body': `# A\n## B\n### C\n\n${sentences(60, 'c')}\n`,
    'a heading at the end of the file': `# Doc\n\n${sentences(40, 'doc')}\n\n## Trailing\n`,
    'an empty section between two big ones': `# Doc\n\n${sentences(40, 'doc')}\n\n## Empty\n\n## Next\n\n${sentences(40, 'next')}\n`,
    'a heading whose first line is longer than a chunk': `## Head\n${'word '.repeat(700)}\n`,
    'a heading before a big code fence': `## Setup\n\n\`\`\`sh\n${'npm install thing\n'.repeat(400)}\`\`\`\n`,
  };
  for (const [name, md] of Object.entries(cases)) {
    it(name, () => {
      const chunks = chunkMarkdown('doc.md', md);
      expectWellFormed(md, chunks);
      expectExactCover(md, chunks);
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) expect(headingOnly(c.text), c.text).toBe(false);
    });
  }

  it('the headings lead the text they were cut from, and the title names them', () => {
    const chunks = chunkMarkdown('doc.md', cases['a heading straight before a subsection too big to share']!);
    expect(chunks[0]!.text.startsWith('## Foo\n\n### Bar\n\nThe bar step 0')).toBe(true);
    expect(chunks[0]!.title).toBe('Foo > Bar');
    const tail = chunkMarkdown('doc.md', cases['a heading at the end of the file']!);
    expect(tail[tail.length - 1]!.text.endsWith('## Trailing')).toBe(true);
    expect(tail[tail.length - 1]!.title).toBe('Doc > Trailing');
    for (const c of tail) expect(c.text.length).toBeLessThanOrEqual(1600);
  });

  it('a file of nothing but headings stays one small chunk', () => {
    const md = '# A\n\n## B\n\n### C\n';
    const chunks = chunkMarkdown('doc.md', md, { minChars: 0 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.text).toBe('# A\n\n## B\n\n### C');
  });
});
