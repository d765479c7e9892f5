import fc from 'fast-check';
import { parse as smolParse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { serializeTopicMd } from '../../src/lib/store/frontmatter.js';
import type { TopicFront } from '../../src/lib/store/model.js';
import { LineArray, parseTomlSubset } from '../../src/lib/store/toml-subset.js';

/** smol-toml's value, or 'error' when it refuses the text. */
function reference(text: string): unknown {
  try {
    return smolParse(text);
  } catch {
    return 'error';
  }
}

/** The subset reader either declines (null) or answers exactly what smol-toml answers. */
function agrees(text: string): void {
  const quick = parseTomlSubset(text);
  if (quick === null) return;
  expect(quick, text).toStrictEqual(reference(text));
}

const front: TopicFront = {
  id: 'topic-x',
  title: 'X – a title, with a comma',
  type: 'ReferenceTopic',
  created_at: '2026-01-02T03:04:05.000Z',
  trust_score: 7.5,
  tags: ['a', 'b c'],
  status: 'active',
  fetched_at: '2026-01-02T03:04:05.000Z',
  max_age_days: 30,
  files: Array.from({ length: 40 }, (_, i) => `docs/file-${i}.md`),
  sources: [
    { type: 'git', url: 'https://example.org/r.git', ref: 'main', ref_kind: 'branch', commit: 'abc', paths: ['docs/', 'README.md'] },
    { type: 'web', url: 'https://example.org/page' },
  ],
  created_by: { ghost: 'g', model: 'm' },
  file_status: [{ path: 'docs/file-1.md', status: 'problematic', reason: 'old', updated_at: '2026-01-02T03:04:05.000Z' }],
};

function frontMatterOf(text: string): string {
  const lines = text.split('\n');
  return lines.slice(1, lines.indexOf('+++', 1)).join('\n');
}

describe('parseTomlSubset', () => {
  it('reads what serializeTopicMd writes, as smol-toml does', () => {
    const toml = frontMatterOf(serializeTopicMd(front, '# X\n'));
    const quick = parseTomlSubset(toml);
    expect(quick).not.toBeNull();
    expect(quick).toStrictEqual(smolParse(toml));
  });

  it('reads a root settings file with comments and tables', () => {
    const toml = '# settings\n\n[embedding]\n# auto picks\nprovider = "auto"\n\n[watch]\nreconcile_seconds = 300\n[limits]\nmax_files = 20000\n';
    expect(parseTomlSubset(toml)).toStrictEqual(smolParse(toml));
  });

  it('reads an empty document and empty arrays', () => {
    expect(parseTomlSubset('')).toStrictEqual(smolParse(''));
    agrees('a = []\nb = [\n]\nc = [ ]\nd = ["x",]\n');
    expect(parseTomlSubset('a = []\nb = [\n]\n')).not.toBeNull();
  });

  // Each of these is either valid TOML outside the subset or not TOML at all: smol-toml decides.
  const declined = [
    'a = "x" # trailing comment',
    'a = "esc\\"aped"',
    "a = 'literal'",
    'a.b = 1',
    '"a" = 1',
    'a = 1979-05-27T07:32:00Z',
    'a = 1\na = 2',
    '[t]\nx = 1\n[t]\ny = 2',
    'a = 1\n[a]',
    '[a]\n[[a]]',
    '[[a]]\n[a]',
    'a = [\n"x"\n"y"\n]',
    'a = [\n"x",\n',
    'a = [\n  "x\u007f"\n]',
    'a = [\n  "x\u007f",\n]',
    'a = [\n  "x",\n  "\u0001y"\n]',
    'a = [\n  "x\\ty",\n]',
    'a = [\n  "x"\r\n]',
    'a = [\n  "x", # c\n]',
    'a = [\n  "x",,\n]',
    'a = [\n  "x"\n  "y"\n]',
    'a = [\n  "x",\n],',
    'a = [\n# c\n"x"\n]',
    'a = [ "x",\n"y" ]',
    'a = ["x" "y"]',
    'a = [,]',
    'a = ["x",,]',
    'a = [1, 2]',
    'a = +1',
    'a = 01',
    'a = -0',
    'a = 1_000',
    'a = 1e3',
    'a = 12345678901234567',
    'a = inf',
    'a = ',
    '= 1',
    '__proto__ = 1',
    '[__proto__]',
    'a = "x"\r\nb = 1',
    '\uFEFFa = 1',
    'a\u00a0= 1',
    '[a]]',
    '[[a]',
    '[ a . b ]',
    '# bell \u0007',
    'a = "tab\tok"',
    'a = "del\u007f"',
    'a = true\nb = false\nc = -12\nd = 0.25\ne = -3.5',
  ];
  for (const text of declined) {
    it(`agrees with smol-toml on ${JSON.stringify(text)}`, () => agrees(text));
  }

  it('declines what it does not read', () => {
    for (const t of ['a = "x" # c', "a = 'l'", 'a.b = 1', 'a = 1\na = 2', 'a = 1979-05-27', 'a = [\n"x"\n"y"\n]', '__proto__ = 1']) {
      expect(parseTomlSubset(t), t).toBeNull();
    }
  });

  it('agrees with smol-toml on generated documents', () => {
    const piece = fc.constantFrom(
      'a = "x"', 'b = 1', 'c = -2.5', 'd = true', 'tags = []', 'files = ["p", "q"]', 'files = [', '  "p",', '  "q"', ']',
      '[t]', '[[s]]', '[ t ]', '# note', '', 'a = "x" # c', 'x = 01', '"k" = 1', 'e = "\\t"', 'f = [ "a" , "b" , ]',
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => agrees(pieces.join('\n'))), { numRuns: 2000 });
  });

  // Arrays of one string per line, the bulk of a large topic.md, with the lines a hand edit or
  // another tool might leave: odd blanks, tabs, control characters, escapes, quotes, missing or
  // doubled commas, a comment after an item, CR.
  const blanks = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('', ' ', '  ', '\t', ' \t ') },
    { weight: 1, arbitrary: fc.constant('\r') },
  );
  const plain = fc.string({ unit: fc.constantFrom('a', '.', ' ', '\t', 'é', '#', ',', ']', '\u2028'), maxLength: 4 });
  const odd = fc.constantFrom('\\t', '\\"', '\\u0041', '\\', '"', '\u0000', '\u0008', '\u000b', '\r', '\u001f', '\u007f');
  const itemText = fc.oneof(
    { weight: 3, arbitrary: plain },
    { weight: 2, arbitrary: fc.tuple(plain, odd, plain).map((parts) => parts.join('')) },
  );
  const comma = fc.oneof({ weight: 6, arbitrary: fc.constant(',') }, { weight: 2, arbitrary: fc.constantFrom('', ',,', ' , ') });
  const lineEnd = fc.oneof({ weight: 10, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom(' # c', '\r', '\r ', '\u000c') });
  const itemLine = fc
    .tuple(blanks, itemText, blanks, comma, blanks, lineEnd)
    .map(([a, item, b, c, d, end]) => `${a}"${item}"${b}${c}${d}${end}`);
  const arrayOpen = fc.constantFrom('files = [', 'files = [ \t', 'files = [\r');
  const arrayClose = fc.constantFrom(']', ' ] ', '\t]\t', '],', '] # c', ']\r', '"x"', '');
  const after = fc.constantFrom('', '\n', '\nb = 2\n', '\n[t]\nfiles = [\n  "z"\n]');

  it('agrees with smol-toml on generated one-per-line arrays', () => {
    let read = 0;
    fc.assert(
      fc.property(arrayOpen, fc.array(itemLine, { maxLength: 6 }), arrayClose, after, (open, items, close, rest) => {
        const text = ['a = 1', open, ...items, close].join('\n') + rest;
        agrees(text);
        if (items.length > 0 && parseTomlSubset(text) !== null) read++;
      }),
      { numRuns: 5000 },
    );
    // Declining everything would agree too: some of the arrays must be read (about 100–200 of
    // the 5,000 are, run to run: the generator is not seeded).
    expect(read).toBeGreaterThan(25);
  });

  it('reads one-per-line arrays with odd blanks, tabs in items and a trailing comma', () => {
    for (const text of [
      'files = [\n  "a",\n\t"b\tc" ,\n "" ,  \n  "d"\n]\n',
      'files = [\n"a"\n]',
      'files = [\n  "a",\n]\nnext = 1',
      'files = [\n]\n[t]\nfiles = [\n  "\u2028é"\n\t]\t\n',
    ]) {
      const quick = parseTomlSubset(text);
      expect(quick, text).not.toBeNull();
      expect(quick, text).toStrictEqual(smolParse(text));
    }
  });

  it('reads an array of more lines than one regex run checks', () => {
    const files = Array.from({ length: 2500 }, (_, i) => `d/${i}.md`);
    const text = `files = [\n${files.map((f) => `  "${f}",`).join('\n')}\n]\nafter = true\n`;
    expect(parseTomlSubset(text)).toStrictEqual(smolParse(text));
  });

  it('counts a lazy array\'s items without making them, as many as it makes', () => {
    const lazy = new Set(['files']);
    const texts = [
      'files = [\n  "a",\n\t"b\tc" ,\n "" ,  \n  "d"\n]\n',
      'files = [\n"a"\n]',
      'files = [\n  "a",\n]\nnext = 1',
      'files = [\n]\n',
      `files = [\n${Array.from({ length: 2500 }, (_, i) => `  "d/${i}.md",`).join('\n')}\n  "last"\n]\n`,
    ];
    const counts = texts.map((text) => {
      const files = parseTomlSubset(text, lazy)!.files;
      expect(files, text).toBeInstanceOf(LineArray);
      const n = (files as LineArray).count();
      expect(n, text).toBe((files as LineArray).items().length);
      return n;
    });
    expect(counts).toEqual([4, 1, 1, 0, 2501]);
  });
});
