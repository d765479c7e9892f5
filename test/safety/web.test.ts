/**
 * The hostile-web family as properties (issue 25's findings 1 and 6, beside the end-to-end cases
 * in test/e2e/hostile-pages.test.ts): bodies that lie about their charset, random labels and
 * bytes, and pages made of runs of links. Nothing throws an untyped error, well-formed UTF-8 is
 * never turned into mojibake by a label, and a page of links keeps every link's text in order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { htmlToMarkdown } from '../../src/lib/sources/html.js';
import { chooseCharset, decodeBody, parseContentType } from '../../src/lib/sources/web-content.js';

const LABELS = ['utf-8', 'utf-16', 'utf-16le', 'utf-16be', 'iso-8859-1', 'windows-1252', 'latin1', 'shift_jis', 'koi8-r', 'gbk', 'x-nonsense', '', 'UTF-8 ', '"utf-16"'];
const label = fc.oneof(fc.constantFrom(...LABELS), fc.string({ maxLength: 12 }));
const text = fc.array(fc.oneof(fc.constantFrom('café', 'naïve', 'Grüße', '日本語', 'emoji 💥', '<p>', '</p>', '\n', ' ', 'a < b', '&amp;'), fc.string({ maxLength: 8 })), { maxLength: 20 }).map((p) => p.join(''));

function decodeOrCode(bytes: Uint8Array, header: string, kind: 'html' | 'text'): { text?: string; code?: string } {
  try {
    return { text: decodeBody(bytes, parseContentType(header), kind, 'http://127.0.0.1/x') };
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError); // never an untyped error
    return { code: (err as TkomaError).code };
  }
}

describe('bodies that lie about their charset', () => {
  it('well-formed UTF-8 with non-ASCII text reads as itself whatever the label says', () => {
    fc.assert(
      fc.property(text, label, fc.constantFrom('html', 'text') as fc.Arbitrary<'html' | 'text'>, (body, l, kind) => {
        const page = kind === 'html' ? `<html><body><main><p>${body} é</p></main></body></html>` : `${body} é\n`;
        const bytes = new TextEncoder().encode(page);
        const out = decodeOrCode(bytes, `text/${kind}; charset=${l}`, kind);
        expect(out.code).toBeUndefined();
        expect(out.text).toBe(page);
      }),
      { numRuns: 300 },
    );
  });

  it('random bytes under random labels: text or UNDECODABLE_TEXT, never a throw of another kind', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), label, fc.constantFrom('html', 'text') as fc.Arbitrary<'html' | 'text'>, (bytes, l, kind) => {
        const out = decodeOrCode(bytes, `text/${kind}; charset=${l}`, kind);
        if (out.code) expect(out.code).toBe('UNDECODABLE_TEXT');
        else expect(typeof out.text).toBe('string');
        const choice = chooseCharset(bytes, l, kind);
        expect(['bom', 'header', 'meta', 'default', 'utf-8-body']).toContain(choice.from);
      }),
      { numRuns: 500 },
    );
  });

  it('a byte order mark wins over any label', () => {
    fc.assert(
      fc.property(text, label, (body, l) => {
        const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(body)]);
        expect(chooseCharset(bytes, l, 'text')).toEqual({ encoding: 'utf-8', from: 'bom' });
      }),
    );
  });
});

describe('pages made of links', () => {
  it('every link text survives, in order, whatever the mix of links, text and nesting', () => {
    const piece = fc.oneof(
      fc.integer({ min: 0, max: 99999 }).map((i) => ({ html: `<a href="/ok?${i}">link${i}</a>`, word: `link${i}` })),
      fc.constantFrom({ html: ' plain ', word: null }, { html: '<br>', word: null }, { html: '<span>', word: null }, { html: '</span>', word: null }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), (pieces) => {
        const html = `<html><body><main>${pieces.map((p) => p.html).join('')}</main></body></html>`;
        const { markdown } = htmlToMarkdown(html, 'http://127.0.0.1/');
        const words = pieces.filter((p) => p.word).map((p) => p.word!);
        let at = 0;
        for (const w of words) {
          const found = markdown.indexOf(w, at);
          expect(found, w).toBeGreaterThanOrEqual(0);
          at = found + w.length;
        }
      }),
      { numRuns: 60 },
    );
  });
});
