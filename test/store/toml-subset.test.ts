import fc from 'fast-check';
import { parse as smolParse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { serializeTopicMd } from '../../src/lib/store/frontmatter.js';
import type { TopicFront } from '../../src/lib/store/model.js';
import { parseTomlSubset } from '../../src/lib/store/toml-subset.js';

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
});
