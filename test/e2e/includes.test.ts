/**
 * Issue 26 part 2: docs that include their code answer with the code. An mdbook guide laid out as
 * the Dioxus docs are (pages under a book's src/, examples in another folder, anchors) through the
 * built binary: the page's hit shows the included code, its line numbers are the page's own, and
 * editing the included file re-chunks the page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const PAGE = [
  '# Event handlers',
  '',
  'Components react to user input through event handlers.',
  '',
  '```rust',
  '{{#include ../../examples/handlers.rs:onclick}}',
  '```',
  '',
  'The handler receives the event.',
  '',
].join('\n');

/** A page of three sections long enough to be three chunks: `--context` widens past the middle one. */
const LONG_PAGE = [
  '# Events in depth',
  '',
  ...Array.from({ length: 8 }, (_, i) => `Paragraph ${i} about how the renderer schedules work between frames and keeps state.`),
  '',
  '## Clicks',
  '',
  'A click arrives as an event the handler reads.',
  '',
  '```rust',
  '{{#include ../../examples/handlers.rs:onclick}}',
  '```',
  '',
  ...Array.from({ length: 5 }, (_, i) => `Note ${i} on bubbling: a parent sees the click after its child unless stopped.`),
  '',
  '## Keyboard',
  '',
  ...Array.from({ length: 8 }, (_, i) => `Line ${i} about focus, key codes and modifiers that keyboard handlers receive.`),
  '',
].join('\n');

const EXAMPLE = [
  'use dioxus::prelude::*;',
  '',
  'fn app() -> Element {',
  '    // ANCHOR: onclick',
  '    rsx! { button { onclick: move |evt| tracing::info!("clicked {evt:?}"), "Press me" } }',
  '    // ANCHOR_END: onclick',
  '}',
  '',
].join('\n');

describe('docs that include their code', () => {
  const tmp = tmpDir('tkoma-includes-');
  const root = join(tmp.path, 'kb');
  const id = 'topic-handbook';

  beforeAll(async () => {
    const repo = makeRepo(join(tmp.path, 'handbook'), {
      'docs/src/handlers.md': PAGE,
      'docs/src/intro.md': '# Introduction\n\nA guide to the framework.\n',
      'docs/src/depth.md': LONG_PAGE,
      'examples/handlers.rs': EXAMPLE,
    });
    await freshRoot(root);
    const req = { topic_id: id, title: 'Handbook', sources: [{ type: 'git', url: repo.url }] };
    const r = await cli(['topic', 'create', '--yes', '--json', '--input', JSON.stringify(req)], { root });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it("the page's hit holds the included code, at the page's own lines", async () => {
    const r = await cli(['search', 'Press me button onclick', '--topic', id, '--json', '--no-server'], { root });
    expect(r.code, r.stderr).toBe(0);
    const hit = r.json.results.find((h: { path: string }) => h.path === 'docs/src/handlers.md');
    expect(hit).toBeDefined();
    expect(hit.snippet).toContain('"Press me"');
    expect(hit.snippet).not.toContain('{{#include');
    expect(hit.snippet).not.toContain('ANCHOR');
    const pageLines = PAGE.split('\n').length - 1;
    expect(hit.start_line).toBe(1);
    expect(hit.end_line).toBeLessThanOrEqual(pageLines);
    expect(hit.snippet_end_line).toBeLessThanOrEqual(pageLines);
  });

  it('a hit widened with --context shows the included code, not the directive, at the page\'s rows', async () => {
    const pageLines = LONG_PAGE.split('\n').length - 1;
    const directiveRow = LONG_PAGE.split('\n').findIndex((l) => l.includes('{{#include')) + 1;
    for (const context of ['4', 'section']) {
      const r = await cli(['search', 'Press me button onclick click', '--topic', id, '--json', '--no-server', '--context', context], { root });
      expect(r.code, r.stderr).toBe(0);
      const hit = r.json.results.find((h: { path: string }) => h.path === 'docs/src/depth.md');
      expect(hit, context).toBeDefined();
      // Widened past its own chunk, yet the code stands where the directive was.
      expect(hit.start_line).toBeLessThan(directiveRow - 4);
      expect(hit.end_line).toBeLessThanOrEqual(pageLines);
      expect(hit.snippet, context).toContain('"Press me"');
      expect(hit.snippet, context).not.toContain('{{#include');
      expect(hit.snippet_start_line).toBeLessThanOrEqual(directiveRow);
      expect(hit.snippet_end_line).toBeGreaterThanOrEqual(directiveRow);
    }
  });

  it('editing the included file re-chunks the page that shows it', async () => {
    const file = join(root, 'references', id, 'examples', 'handlers.rs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Press me', 'Launch rocket'));
    const r = await cli(['search', 'Launch rocket', '--topic', id, '--json', '--no-server'], { root });
    expect(r.code, r.stderr).toBe(0);
    const hit = r.json.results.find((h: { path: string }) => h.path === 'docs/src/handlers.md');
    expect(hit?.snippet).toContain('Launch rocket');
  });
});
