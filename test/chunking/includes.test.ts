import { describe, expect, it } from 'vitest';

import { alignToPage, applyExpansions, expandIncludes, findIncludes, pickLines, resolveTarget } from '../../src/lib/chunking/includes.js';
import { chunkMarkdown } from '../../src/lib/chunking/markdown.js';

const RS = ['use dioxus::prelude::*;', '', '// ANCHOR: app', 'fn app() -> Element {', '    // ANCHOR: rsx', '    rsx! { "hi" }', '    // ANCHOR_END: rsx', '}', '// ANCHOR_END: app', ''].join('\n');

describe('include directives', () => {
  it('resolves targets relative to the page, never out of the topic', () => {
    expect(resolveTarget('docs/guide/page.md', '../examples/a.rs')).toBe('docs/examples/a.rs');
    expect(resolveTarget('docs/page.md', './a.rs')).toBe('docs/a.rs');
    expect(resolveTarget('page.md', '../a.rs')).toBeNull();
    expect(resolveTarget('docs/page.md', '/etc/passwd')).toBeNull();
    expect(resolveTarget('docs/page.md', 'https://example.com/a.rs')).toBeNull();
  });

  it('reads mdbook ranges and anchors as mdbook does', () => {
    const page = [
      '```rust',
      '{{#include ../src/a.rs}}',
      '{{#include ../src/a.rs:4:6}}',
      '{{#include ../src/a.rs:4:}}',
      '{{#include ../src/a.rs::2}}',
      '{{#include ../src/a.rs:4}}',
      '{{#rustdoc_include ../src/a.rs:app}}',
      '\\{{#include ../src/a.rs}}',
      '```',
    ].join('\n');
    const refs = findIncludes('book/page.md', page);
    expect(refs.map((r) => [r.startRow, r.target, r.pick])).toEqual([
      [1, 'src/a.rs', { kind: 'all' }],
      [2, 'src/a.rs', { kind: 'lines', ranges: [[4, 6]] }],
      [3, 'src/a.rs', { kind: 'lines', ranges: [[4, Infinity]] }],
      [4, 'src/a.rs', { kind: 'lines', ranges: [[1, 2]] }],
      [5, 'src/a.rs', { kind: 'lines', ranges: [[4, 4]] }],
      [6, 'src/a.rs', { kind: 'anchor', name: 'app' }],
    ]);
  });

  it('takes an anchor without its marker lines or nested markers, dedented; a missing anchor takes nothing', () => {
    expect(pickLines(RS, { kind: 'anchor', name: 'app' })).toEqual(['fn app() -> Element {', '    rsx! { "hi" }', '}']);
    expect(pickLines(RS, { kind: 'anchor', name: 'rsx' })).toEqual(['rsx! { "hi" }']);
    expect(pickLines(RS, { kind: 'anchor', name: 'nope' })).toBeNull();
    expect(pickLines(RS, { kind: 'lines', ranges: [[4, 4]] })).toEqual(['fn app() -> Element {']);
    expect(pickLines(RS, { kind: 'all' })).toHaveLength(5); // nine lines, four of them markers
  });

  it('reads Sphinx literalinclude options and AsciiDoc include attributes', () => {
    const rst = ['Intro', '', '.. literalinclude:: ../examples/x.py', '   :language: python', '   :lines: 2-3,5', '', 'After'].join('\n');
    const [ref] = findIncludes('docs/usage.rst', rst);
    expect(ref).toMatchObject({ startRow: 2, endRow: 4, target: 'examples/x.py', pick: { kind: 'lines', ranges: [[2, 3], [5, 5]] } });
    const between = findIncludes('docs/u.rst', '.. literalinclude:: x.py\n   :start-after: # start\n   :end-before: # end\n');
    expect(between[0]!.pick).toEqual({ kind: 'between', after: '# start', before: '# end' });
    expect(pickLines('a\n# start\nb\nc\n# end\nd', between[0]!.pick)).toEqual(['b', 'c']);
    const adoc = findIncludes('docs/guide.adoc', '== Use\n\ninclude::../src/App.java[tag=main]\ninclude::{dir}/x.java[]\n');
    expect(adoc).toHaveLength(1);
    expect(adoc[0]).toMatchObject({ startRow: 2, target: 'src/App.java', pick: { kind: 'anchor', name: 'main' } });
    expect(pickLines('x\n// tag::main[]\nrun();\n// end::main[]\n', adoc[0]!.pick)).toEqual(['run();']);
  });

  it("expands a page's chunks in place: the code is in the text, the chunk's lines stay the page's", () => {
    const page = '# Components\n\nAn app is a function:\n\n```rust\n{{#include ../src/a.rs:app}}\n```\n\nThat is all.\n';
    const refs = findIncludes('book/c.md', page);
    const expansions = expandIncludes(refs, (t) => (t === 'src/a.rs' ? RS : null));
    expect(expansions).toEqual([{ startRow: 5, endRow: 5, lines: ['fn app() -> Element {', '    rsx! { "hi" }', '}'] }]);
    const chunks = chunkMarkdown('book/c.md', page);
    const out = applyExpansions(page, chunks, expansions);
    expect(out[0]!.text).toContain('fn app() -> Element {');
    expect(out[0]!.text).not.toContain('{{#include');
    expect([out[0]!.startLine, out[0]!.endLine]).toEqual([chunks[0]!.startLine, chunks[0]!.endLine]);
    expect(out[0]!.hash).not.toBe(chunks[0]!.hash);
    // A missing target leaves the directive as it is.
    expect(expandIncludes(refs, () => null)).toEqual([]);
  });

  it('maps an expanded text back to the page rows, several includes and a multi-row directive alike', () => {
    const page = ['# T', '```', '{{#include a}}', '```', 'mid', '{{#include b}}', 'end'];
    const text = ['# T', '```', 'a1', 'a2', 'a3', '```', 'mid', 'b1', 'b2', 'end'];
    expect(alignToPage(page, text)).toEqual([0, 1, 2, 2, 2, 3, 4, 5, 5, 6]);
    const rst = ['Intro', '.. literalinclude:: x.py', '   :lines: 1-2', '', 'After'];
    expect(alignToPage(rst, ['Intro', 'x1', 'x2', '', 'After'])).toEqual([0, 1, 1, 3, 4]);
    expect(alignToPage(['a', 'b'], ['a', 'b'])).toEqual([0, 1]);
    expect(alignToPage(['a', 'b'], ['x', 'y', 'z', 'q'])).toEqual([0, 0, 0, 0]);
  });
});

describe('include budget', () => {
  it("stops expanding a chunk past its budget: later directives stay as the page writes them", () => {
    const page = ['```', ...Array.from({ length: 4 }, (_, i) => `{{#include big${i}.rs}}`), '```'].join('\n');
    const big = Array.from({ length: 60 }, (_, i) => `let value_${i} = compute_something_long(${i});`).join('\n');
    const refs = findIncludes('p.md', page);
    const chunks = [{ path: 'p.md', startLine: 1, endLine: 6, role: 'docs' as const, title: 'p', kind: 'section', language: 'markdown', text: page, hash: 'h' }];
    const [c] = applyExpansions(page, chunks, expandIncludes(refs, () => big));
    expect(c!.text.length).toBeLessThan(page.length + 8000);
    expect(c!.text).toContain('{{#include big3.rs}}');
    expect(c!.text).not.toContain('{{#include big0.rs}}');
  });
});
