/**
 * Issue 26 part 2 through the built binary, on a real git repository laid out as the Dioxus
 * repository is (a guide with long pages, a cookbook, headless test fixtures): one page cannot
 * fill the list (its further hits are folded into `more_in_file`), a comment-only stylesheet in a
 * test folder ranks below the guide page about styling, and cookbook pages are docs.
 */
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const section = (n: number): string =>
  `## Deploy step ${n}\n\nTo deploy the app, run the deploy command for target ${n}; the deploy bundles assets and uploads them.\n`;

describe('answers at a glance', () => {
  const tmp = tmpDir('tkoma-glance-');
  const root = join(tmp.path, 'kb');
  const id = 'topic-uikit';

  beforeAll(async () => {
    const repo = makeRepo(join(tmp.path, 'uikit'), {
      'README.md': '# UI kit\n\nA UI framework. See the guide to deploy an app and to style it.\n',
      'docs/guide/deploy.md': `# Deploying\n\nHow to deploy an app.\n\n${Array.from({ length: 12 }, (_, i) => section(i + 1)).join('\n')}`,
      'docs/guide/hosting.md': '# Hosting\n\nDeploy the bundle to any static host; deploy previews come from the same command.\n',
      'docs/guide/styling.md': '# Styling\n\nStyle components with stylesheets: load a stylesheet with the asset macro and use its classes.\n',
      'docs/cookbook/state.md': '# State cookbook\n\nKeep shared state in a context provider and read it with a hook.\n',
      'packages/desktop/headless_tests/stylesheets.css': '/* stylesheets styling for the headless tests */\n',
      'packages/core/src/lib.rs': 'pub fn render() -> String {\n    String::from("ui")\n}\n',
    });
    await freshRoot(root);
    const req = { topic_id: id, title: 'UI kit', sources: [{ type: 'git', url: repo.url }] };
    const r = await cli(['topic', 'create', '--yes', '--json', '--input', JSON.stringify(req)], { root });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it('one page keeps at most two hits in the list; the rest are folded into its first as more_in_file', async () => {
    const r = await cli(['search', 'deploy the app', '--topic', id, '--json', '--no-server'], { root });
    expect(r.code, r.stderr).toBe(0);
    const paths: string[] = r.json.results.map((h: { path: string }) => h.path);
    expect(paths.filter((p) => p === 'docs/guide/deploy.md').length).toBeLessThanOrEqual(2);
    expect(paths).toContain('docs/guide/hosting.md');
    const first = r.json.results.find((h: { path: string }) => h.path === 'docs/guide/deploy.md');
    expect(first.more_in_file.length).toBeGreaterThan(0);
    expect(first.more_in_file[0]).toMatchObject({ start_line: expect.any(Number), end_line: expect.any(Number) });
  });

  it('a comment-only file in a test folder ranks below the page with content', async () => {
    const r = await cli(['search', 'styling with stylesheets', '--topic', id, '--json', '--no-server'], { root });
    expect(r.code, r.stderr).toBe(0);
    const paths: string[] = r.json.results.map((h: { path: string }) => h.path);
    expect(paths[0]).toBe('docs/guide/styling.md');
    const junk = paths.indexOf('packages/desktop/headless_tests/stylesheets.css');
    if (junk >= 0) {
      expect(junk).toBeGreaterThan(paths.indexOf('docs/guide/styling.md'));
      expect(r.json.results[junk].role).toBe('test');
    }
  });

  it('cookbook pages are docs', async () => {
    const r = await cli(['search', 'shared state context provider', '--topic', id, '--json', '--no-server'], { root });
    expect(r.json.results[0]).toMatchObject({ path: 'docs/cookbook/state.md', role: 'docs' });
  });
});
