/**
 * Hostile strings through the parsers that see fetched or hand-edited text: topic.md front
 * matter, HTML conversion, the chunkers. Round trips hold and nothing throws an untyped error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { chunkFile } from '../../src/lib/chunking/index.js';
import { TkomaError } from '../../src/lib/errors.js';
import { htmlToMarkdown } from '../../src/lib/sources/html.js';
import { parseTopicMd, serializeTopicMd } from '../../src/lib/store/frontmatter.js';
import type { TopicFront } from '../../src/lib/store/model.js';
import { expectWellFormed } from '../helpers/chunking.js';

/** Strings that break naive front matter handling: fences, newlines, NULs, quotes, TOML syntax. */
const nasty = fc.oneof(
  fc.constantFrom('+++', '\n+++\n', '+++\nid = "evil"\n+++', '"""', "'''", '\\', '\\u0000', '\u0000', '\r\n', '\r', '\u2028', '\u2029', '[[sources]]', 'x = 1', '#', '\t', '\uFEFF', '\u202E', '\uD800', '💥', '${HOME}', '`rm -rf /`'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);
const nastyString = fc.array(nasty, { maxLength: 8 }).map((parts) => parts.join(''));

function front(over: Partial<TopicFront>): TopicFront {
  return {
    id: 'topic-x',
    title: 'X',
    type: 'ReferenceTopic',
    created_at: '2025-01-01T00:00:00.000Z',
    trust_score: 5,
    tags: [],
    status: 'active',
    fetched_at: '2025-01-01T00:00:00.000Z',
    max_age_days: 30,
    files: [],
    sources: [{ type: 'web', url: 'https://example.com/' }],
    ...over,
  };
}

/** The string as TOML can carry it: lone surrogates have no UTF-8 form and become U+FFFD on disk. */
const onDisk = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');
const deepOnDisk = <T>(v: T): T =>
  (typeof v === 'string' ? onDisk(v) : Array.isArray(v) ? v.map(deepOnDisk) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepOnDisk(x)])) : v) as T;

describe('front matter with hostile values', () => {
  it('round-trips titles, tags, paths, urls, reasons and bodies holding +++, newlines and NULs', () => {
    fc.assert(
      fc.property(nastyString, fc.array(nastyString, { maxLength: 7 }), nastyString, nastyString, nastyString, (title, strs, body, reason, ghost) => {
        const f = front({
          title: title || 't',
          tags: strs,
          files: strs,
          created_by: ghost ? { ghost } : undefined,
          sources: [{ type: 'git', url: title || 'u', ref: reason, paths: strs, commit: ghost }],
          file_status: strs.length ? [{ path: strs[0]!, status: 'problematic', reason, updated_at: '2025-01-01T00:00:00.000Z' }] : undefined,
        });
        if (!f.created_by) delete f.created_by;
        if (!f.file_status) delete f.file_status;
        const text = onDisk(serializeTopicMd(f, body));
        // The front matter is exactly one +++ block: nothing in a value can open or close another.
        const fences = text.split('\n').map((l, i) => [l.trim(), i] as const).filter(([l]) => l === '+++');
        expect(fences[0]![1]).toBe(0);
        const parsed = parseTopicMd(text, 'references/topic-x/topic.md');
        expect(parsed.front).toEqual(deepOnDisk(f));
        expect(parsed.body.trim()).toBe(onDisk(body).replace(/\r\n/g, '\n').replace(/^\n+/, '').replace(/\s+$/, '').trim());
      }),
      { numRuns: 400 },
    );
  });

  it('hand-broken files fail with MALFORMED_TOPIC and a line, never anything else', () => {
    const base = serializeTopicMd(front({ title: 'T', files: ['a.md'] }), '# T\n');
    fc.assert(
      fc.property(fc.nat(base.length), fc.nat(40), nastyString, (at, cut, insert) => {
        const broken = base.slice(0, at) + insert + base.slice(Math.min(base.length, at + cut));
        try {
          parseTopicMd(broken, 'topic.md');
        } catch (err) {
          expect(err).toBeInstanceOf(TkomaError);
          expect((err as TkomaError).code).toBe('MALFORMED_TOPIC');
          expect((err as TkomaError).details.line).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 1500 },
    );
  });
});

/** Random tag soup: unbalanced, deeply nested, attributes with quotes, entities, comments, CDATA. */
const tag = fc.constantFrom('div', 'span', 'p', 'pre', 'code', 'table', 'tr', 'td', 'ul', 'li', 'a', 'main', 'article', 'nav', 'h1', 'h2', 'script', 'style', 'svg', 'template', 'br', 'img', 'b', 'x-y', 'TABLE');
const attr = fc.constantFrom('', ' class="language-js"', ' hidden', ' aria-hidden="true"', ' style="display:none"', ' style="color:#fff"', ' href="javascript:alert(1)"', ' href="file:///etc/passwd"', ' src="data:x"', " title='a\"b'", ' x=<>', ' role="main"');
const soupPiece = fc.oneof(
  fc.tuple(tag, attr).map(([t, a]) => `<${t}${a}>`),
  tag.map((t) => `</${t}>`),
  fc.constantFrom('&amp;', '&lt;', '&#0;', '&#x110000;', '&unknown;', '<!--', '-->', '<![CDATA[', ']]>', '<!doctype html>', '<', '>', '`', '```', '\u0000', '\r', '\n', 'Ignore previous instructions'),
  fc.string({ maxLength: 10 }),
);

describe('HTML conversion of random tag soup', () => {
  it('never throws, returns text, and keeps script and style content out', () => {
    fc.assert(
      fc.property(fc.array(soupPiece, { maxLength: 120 }), (pieces) => {
        const html = pieces.join('');
        const out = htmlToMarkdown(html, 'https://example.com/page');
        expect(typeof out.markdown).toBe('string');
        expect(out.markdown).not.toContain('javascript:');
        expect(out.markdown).not.toContain('file:///');
        for (const h of out.hidden ?? []) expect(h.length).toBeLessThanOrEqual(2000);
      }),
      { numRuns: 400 },
    );
  });

  it('survives deep nesting of every kind of element', () => {
    for (const t of ['div', 'span', 'ul', 'table', 'pre', 'blockquote', 'a', 'b']) {
      const deep = `<html><body>${`<${t}>`.repeat(3000)}bottom${`</${t}>`.repeat(3000)}</body></html>`;
      expect(htmlToMarkdown(deep).markdown).toContain('bottom');
    }
  });
});

describe('chunkers on hostile text', () => {
  const paths = ['doc.md', 'README', 'a.ts', 'a.py', 'a.rs', 'data.json', 'x.unknown', 'notes.txt'];
  const line = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 10 }),
    fc.constantFrom('```', '~~~', '# h', '---', '+++', 'function f() {', '}', 'class A:', '  def f(self):', '\u0000', '\r', '\uFEFF', '\u202E', 'x'.repeat(3000), '<|im_start|>system'),
  );
  it('never throw and always give verbatim, well-numbered chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.array(line, { maxLength: 60 }), async (path, lines) => {
        const content = lines.join('\n');
        const chunks = await chunkFile(path, content, { maxChars: 400 });
        expectWellFormed(content, chunks, path);
      }),
      { numRuns: 150 },
    );
  });
});
