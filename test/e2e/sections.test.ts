/**
 * Issue 26 part 2, section choice, through the built binary on a real git repository laid out as
 * the Dioxus docs are: for "how does X work" the page that explains X answers with its
 * introduction, not with a late, narrow section whose heading happens to say "Working".
 */
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const EFFECTS = [
  '# Effects and Memos',
  '',
  'Reactivity is how the framework keeps the interface in step with state: a component reads signals while it renders, the runtime tracks those reads, and a write to a signal re-runs every reactive scope that read it.',
  '',
  '## Derived State with Memo',
  '',
  'A memo caches a value derived from signals and recomputes it when they change.',
  '',
  '## Running Side-Effects',
  '',
  'An effect runs after render and again whenever a signal it read changes.',
  '',
  '## Opting Out of Subscriptions',
  '',
  'Read a signal with peek to skip the subscription; the scope will not re-run when it changes.',
  '',
  '## Working with Untracked State',
  '',
  'State that lives outside signals is untracked: reactivity cannot see it, so wrap it in a signal or work with it through a memo that you refresh by hand when it changes.',
  '',
].join('\n');

describe('section choice for overview questions', () => {
  const tmp = tmpDir('tkoma-sections-');
  const root = join(tmp.path, 'kb');
  const id = 'topic-uiguide';

  beforeAll(async () => {
    const repo = makeRepo(join(tmp.path, 'uiguide'), {
      'docs/essentials/effects.md': EFFECTS,
      'docs/essentials/routing.md': '# Routing\n\nThe router maps URLs to components.\n\n## Nested routes\n\nLayouts wrap nested routes.\n',
      'README.md': '# UI guide\n\nA UI framework and its guide.\n',
    });
    await freshRoot(root);
    const req = { topic_id: id, title: 'UI guide', sources: [{ type: 'git', url: repo.url }] };
    const r = await cli(['topic', 'create', '--yes', '--json', '--input', JSON.stringify(req)], { root });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it("answers 'how does X work' with the page's introduction first", async () => {
    const r = await cli(['search', 'how does reactivity work', '--topic', id, '--json', '--no-server', '--limit', '5'], { root });
    expect(r.code, r.stderr).toBe(0);
    const first = r.json.results[0];
    expect(first).toMatchObject({ path: 'docs/essentials/effects.md', start_line: 1 });
    expect(first.title).not.toContain('Untracked');
    expect(first.snippet).not.toContain('Untracked');
  });

  it('a question about the narrow section still finds it', async () => {
    const r = await cli(['search', 'untracked state outside signals', '--topic', id, '--json', '--no-server'], { root });
    expect(r.json.results[0].title).toContain('Working with Untracked State');
  });
});
