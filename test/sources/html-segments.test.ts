import { NodeHtmlMarkdown } from 'node-html-markdown';
import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import { convertInPieces } from '../../src/lib/sources/html-segments.js';
import { htmlToMarkdown } from '../../src/lib/sources/html.js';

const nhm = new NodeHtmlMarkdown({ bulletMarker: '-', maxConsecutiveNewlines: 0 });

/** convertInPieces with a translate that records the size of every piece it is handed. */
function pieces(html: string, limit: number): { markdown: string; largest: number; calls: number } {
  let largest = 0;
  let calls = 0;
  const markdown = convertInPieces(parse(html, { lowerCaseTagName: true }), limit, (piece) => {
    largest = Math.max(largest, piece.length);
    calls++;
    return nhm.translate(piece);
  });
  return { markdown, largest, calls };
}

const links = (n: number) => Array.from({ length: n }, (_, i) => `<a href="http://h/ok?${i}">l${i}</a>`).join('');

describe('convertInPieces: every piece the converter sees is bounded', () => {
  // The converter is quadratic in its input; bounded pieces make the whole conversion linear.
  it('cuts a run of bare links in <main> between links, joined as one paragraph', () => {
    const html = `<main>${links(2000)}</main>`;
    const { markdown, largest } = pieces(html, 1000);
    expect(largest).toBeLessThan(1100);
    // Same text as one conversion of the whole: the cuts do not show.
    expect(markdown).toBe(nhm.translate(html).trim());
  });

  it('keeps the page\'s spaces at the cuts and none where there were none', () => {
    const html = `<main>${Array.from({ length: 400 }, (_, i) => `word${i} <b>b${i}</b>`).join(' ')}</main>`;
    const { markdown, largest } = pieces(html, 500);
    expect(largest).toBeLessThan(600);
    expect(markdown).toBe(nhm.translate(html).trim());
  });

  it('opens a giant paragraph, heading, quote and list item instead of converting them whole', () => {
    for (const [html, check] of [
      [`<p>${links(2000)}</p>`, (md: string) => expect(md.startsWith('[l0](http://h/ok?0)')).toBe(true)],
      [`<h2>${links(2000)}</h2>`, (md: string) => expect(md).toMatch(/^## \[l0\]\(http:\/\/h\/ok\?0\)[^\n]*\[l1999\]/)],
      [`<blockquote><p>${links(2000)}</p><p>second</p></blockquote>`, (md: string) => expect(md).toMatch(/^> \[l0\][\s\S]*\n>\n> second$/)],
      [`<ul><li>small</li><li>${links(2000)}<ul><li>nested</li></ul></li></ul>`, (md: string) => expect(md).toMatch(/^- small\n\n- \[l0\][\s\S]*\n {2}- nested$/)],
      [`<a href="http://h/x">${'<em>w</em> '.repeat(3000)}</a>`, (md: string) => expect(md.match(/_w_/g)).toHaveLength(3000)],
    ] as const) {
      const { markdown, largest } = pieces(html, 1000);
      expect(largest, html.slice(0, 20)).toBeLessThan(1200);
      check(markdown);
      expect(markdown.match(/\[l\d+\]/g)?.length ?? 2000, html.slice(0, 20)).toBe(2000);
    }
  });

  it('numbers the later pieces of a long ordered list on from the earlier ones', () => {
    const html = `<ol>${Array.from({ length: 300 }, (_, i) => `<li>item ${i}</li>`).join('')}</ol>`;
    const { markdown, calls } = pieces(html, 500);
    expect(calls).toBeGreaterThan(3);
    const numbers = [...markdown.matchAll(/^(\d+)\. item (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(numbers).toEqual(Array.from({ length: 300 }, (_, i) => [i + 1, i]));
  });
});

describe('htmlToMarkdown on a page of 20,000 bare links', () => {
  it('keeps every link, in order, as one paragraph', () => {
    const md = htmlToMarkdown(`<main>${Array.from({ length: 20_000 }, (_, i) => `<a href="/ok?${i}">l</a>`).join('')}</main>`, 'http://127.0.0.1/').markdown;
    const seen = [...md.matchAll(/\[l\]\(http:\/\/127\.0\.0\.1\/ok\?(\d+)\)/g)].map((m) => Number(m[1]));
    expect(seen).toEqual(Array.from({ length: 20_000 }, (_, i) => i));
    expect(md.trim().split('\n')).toHaveLength(1);
  });
});
