import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { parseTopicMd, serializeTopicMd, shallowCopyFront, splitFront } from '../../src/lib/store/frontmatter.js';
import type { TopicFront } from '../../src/lib/store/model.js';

const seedExample = `+++
id = "topic-dioxus-ui"
title = "Dioxus - Rust UI Framework"
type = "ReferenceTopic"
created_at = "2025-06-15T10:00:00Z"
trust_score = 8
tags = ["rust", "ui", "framework", "dioxus"]
status = "active"
fetched_at = "2025-06-15T10:00:00Z"
max_age_days = 30
files = ["README.md", "docs/guide/index.md", "examples/hello_world.rs"]

[created_by]
ghost = "ghost-a"
model = "claude-sonnet-4-5-20250929"

[[sources]]
type = "git"
url = "https://github.com/DioxusLabs/dioxus"
ref = "main"
commit = "a1b2c3d4e5f6"
paths = ["README.md", "docs/", "examples/"]

[[sources]]
type = "web"
url = "https://dioxuslabs.com/learn/0.6/"
+++

# Dioxus - Rust UI Framework

Dioxus is a portable, performant, and ergonomic framework.
`;

function front(over: Partial<TopicFront> = {}): TopicFront {
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

function expectMalformed(text: string, line: number, pattern: RegExp): void {
  try {
    parseTopicMd(text, 'references/t/topic.md');
    expect.unreachable('should have thrown');
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError);
    const e = err as TkomaError;
    expect(e.code).toBe('MALFORMED_TOPIC');
    expect(e.details.line).toBe(line);
    expect(e.details.file).toBe('references/t/topic.md');
    expect(e.message).toMatch(pattern);
  }
}

describe('topic.md front matter', () => {
  it("parses the seed's full example", () => {
    const { front: f, body } = parseTopicMd(seedExample, 'topic.md');
    expect(f.id).toBe('topic-dioxus-ui');
    expect(f.trust_score).toBe(8);
    expect(f.created_by).toEqual({ ghost: 'ghost-a', model: 'claude-sonnet-4-5-20250929' });
    expect(f.sources).toHaveLength(2);
    expect(f.sources[0]).toMatchObject({ type: 'git', ref: 'main', commit: 'a1b2c3d4e5f6', paths: ['README.md', 'docs/', 'examples/'] });
    expect(body.startsWith('# Dioxus - Rust UI Framework')).toBe(true);
  });

  it('writes the seed example back byte for byte', () => {
    const { front: f, body } = parseTopicMd(seedExample, 'topic.md');
    expect(serializeTopicMd(f, body)).toBe(seedExample);
  });

  it('lists many files one per line so diffs stay readable', () => {
    const files = Array.from({ length: 8 }, (_, i) => `src/f${i}.ts`);
    const text = serializeTopicMd(front({ files }), '# X\n');
    expect(text).toContain('files = [\n  "src/f0.ts",\n');
    expect(parseTopicMd(text, 't').front.files).toEqual(files);
  });

  it('keeps unquoted TOML dates as ISO strings', () => {
    const text = seedExample.replace('fetched_at = "2025-06-15T10:00:00Z"', 'fetched_at = 2025-06-15T10:00:00Z');
    expect(parseTopicMd(text, 't').front.fetched_at).toBe('2025-06-15T10:00:00.000Z');
  });

  it('reports file and line for broken TOML', () => {
    expectMalformed(seedExample.replace('trust_score = 8', 'trust_score = = 8'), 6, /invalid TOML/);
  });

  it('reports the line of a field with the wrong type or value', () => {
    expectMalformed(seedExample.replace('status = "active"', 'status = "archived"'), 8, /status/);
    expectMalformed(seedExample.replace('max_age_days = 30', 'max_age_days = -1'), 10, /max_age_days/);
    expectMalformed(seedExample.replace('type = "ReferenceTopic"', 'type = "Note"'), 4, /ReferenceTopic/);
  });

  it('refuses a file without front matter or with an unclosed one', () => {
    expectMalformed('# just markdown\n', 1, /\+\+\+/);
    expectMalformed('+++\nid = "x"\n', 3, /not closed/);
  });

  it('round-trips arbitrary titles, tags, bodies and statuses', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }).filter((s) => s.trim().length > 0),
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 }),
        fc.string({ maxLength: 300 }),
        fc.array(fc.record({ path: fc.string({ minLength: 1, maxLength: 30 }), status: fc.constantFrom('problematic' as const, 'obsolete' as const), reason: fc.string({ maxLength: 40 }) }), { maxLength: 3 }),
        (title, tags, body, statuses) => {
          const f = front({ title, tags, file_status: statuses.length ? statuses.map((s) => ({ ...s, updated_at: '2025-01-01T00:00:00.000Z' })) : undefined });
          const text = serializeTopicMd(f, body);
          const parsed = parseTopicMd(text, 't');
          expect(parsed.front).toEqual(f);
          expect(parsed.body.trim()).toBe(body.replace(/^\n+/, '').replace(/\s+$/, '').trim());
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('splitFront (the fences found without splitting the text)', () => {
  /** What parseTopicMd did before: split every line, then look for the fences. */
  const reference = (text: string): { toml: string; body: string } | string => {
    const lines = text.split(/\r?\n/);
    if (lines[0]?.trim() !== '+++') return 'start';
    const end = lines.findIndex((l, i) => i > 0 && l.trim() === '+++');
    if (end < 0) return `unclosed:${lines.length}`;
    return { toml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n').replace(/^\n/, '') };
  };
  const actual = (text: string): { toml: string; body: string } | string => {
    try {
      const { toml, body } = splitFront(text, 'topic.md');
      return { toml, body };
    } catch (err) {
      const m = (err as TkomaError).message;
      return m.includes('must start') ? 'start' : `unclosed:${/topic\.md:(\d+)/.exec(m)![1]}`;
    }
  };

  it('agrees with splitting every line (property)', () => {
    const piece = fc.constantFrom('+++', ' +++ ', '+++x', 'x+++', '++', '\n', '\r\n', '\r', 'a = 1', 'files = [', '  "a.md",', ']', '', ' ', '\u00a0+++', '+++\t', '# body');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (parts) => {
        const text = parts.join('');
        expect(actual(text)).toEqual(reference(text));
        const fenced = `+++\n${text}`;
        expect(actual(fenced)).toEqual(reference(fenced));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads a front matter of thousands of lines and the body after it', () => {
    const files = Array.from({ length: 5000 }, (_, i) => `  "f${i}.md",`).join('\n');
    const text = `+++\nid = "t"\nfiles = [\n${files}\n]\n+++\n\n# Body\n+++ not a fence here\n`;
    expect(actual(text)).toEqual(reference(text));
    expect((actual(text) as { body: string }).body).toBe('# Body\n+++ not a fence here\n');
  });
});

describe('a topic.md\'s `files` list, made strings only when read', () => {
  const front = (): TopicFront => parseTopicMd(seedExample, 'topic.md').front;
  // What serializeTopicMd writes: one file a line, the form a large topic has.
  const files = ['README.md', 'docs/a b.md', 'src/ü.rs', 'src/lib.rs', 'src/main.rs', 'z/[x].md'];
  const text = serializeTopicMd({ ...front(), files }, 'Body.\n');
  const unread = (f: TopicFront): boolean => Object.getOwnPropertyDescriptor(f, 'files')?.get !== undefined && JSON.stringify(Object.getOwnPropertyDescriptor(f, 'files')) === '{"enumerable":true,"configurable":true}';

  it('reads the same front as the whole parse: fields, key order, JSON', () => {
    expect(text).toContain('files = [\n');
    const lazy = parseTopicMd(text, 'topic.md').front;
    // A comment inside the list is not the subset's form: smol-toml reads it, as an array.
    const eager = parseTopicMd(text.replace('files = [\n', 'files = [\n  # all of them\n'), 'topic.md').front;
    expect(unread(eager)).toBe(false);
    expect(unread(lazy)).toBe(true);
    expect(Object.keys(lazy)).toEqual(Object.keys(eager));
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
    expect(lazy.files).toEqual(files);
  });

  it('copies stay unread, each its own list once read, and a list set by a caller is kept', () => {
    const original = parseTopicMd(text, 'topic.md').front;
    const copy = shallowCopyFront(original);
    expect(unread(copy)).toBe(true);
    copy.files.push('new.md');
    expect(original.files).toEqual(files);
    expect(copy.files.at(-1)).toBe('new.md');
    const other = shallowCopyFront(original);
    other.files = ['only.md'];
    expect(shallowCopyFront(other).files).toEqual(['only.md']);
    expect(serializeTopicMd(other, '')).toContain('"only.md"');
  });
});
