/**
 * Issue 9, item 1: a stored file's name is a stable function of its source, recorded in the
 * manifest at create time and reused by refresh; two sources never share a name (web pages whose
 * slugs collide, case-only URL differences, a git file named like a web page's slug).
 * Real HTTP on 127.0.0.1, real git, the built CLI.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { expectClean, mustRun } from '../helpers/crash.js';
import { makeRepo, serve, type Served, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const html = (word: string) => ({ type: 'text/html', body: `<html><body><main><h1>Page</h1><p>${word} lives here.</p></main></body></html>` });

/** Every file of a topic (not topic.md/manifest) → its text. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name === 'topic.md' || e.name === '.tkoma-files.jsonl') continue;
    const p = join(e.parentPath, e.name);
    out[p.slice(dir.length + 1)] = readFileSync(p, 'utf8');
  }
  return out;
}

const manifest = (dir: string) =>
  readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { path: string; source_url: string });

/** Each word appears in exactly one file, and the files are as many as the words. */
function expectEachOnce(dir: string, words: string[]): void {
  const files = contents(dir);
  for (const w of words) expect(Object.values(files).filter((t) => t.includes(w)), `${w} in ${JSON.stringify(files)}`).toHaveLength(1);
}

describe('file names are recorded and reused: refresh never merges two sources into one file', () => {
  const tmp = tmpDir('tkoma-names-');
  const root = join(tmp.path, 'kb');
  let site: Served;
  let slug: string; // the host part every page slug starts with

  beforeAll(async () => {
    site = await serve({
      '/guide.html': html('alpha'),
      '/guide/': html('beta'),
      '/x': html('lowercase'),
      '/X': html('uppercase'),
    });
    slug = `127.0.0.1-${new URL(site.url).port}`;
    await freshRoot(root);
  });
  afterAll(async () => {
    await site.close();
    tmp.cleanup();
  });

  it("the issue's recipe: /guide.html and /guide/ keep their own files through refreshes", async () => {
    const created = await mustRun(['topic', 'create', '--yes', '--title', 'Guide', '--web', `${site.url}/guide.html`, '--web', `${site.url}/guide/`, '--json'], root);
    expect(created.json.file_count).toBe(2);
    const dir = join(root, 'references', 'topic-guide');
    const names = Object.fromEntries(manifest(dir).map((r) => [r.source_url, r.path]));
    expectEachOnce(dir, ['alpha', 'beta']);

    for (let round = 0; round < 2; round++) {
      const r = await mustRun(['refresh', 'topic-guide', '--json'], root);
      const t = r.json.topics[0];
      expect({ added: t.added, removed: t.removed, changed: t.changed }).toEqual({ added: 0, removed: 0, changed: 0 });
      expectEachOnce(dir, ['alpha', 'beta']);
      expect(Object.fromEntries(manifest(dir).map((x) => [x.source_url, x.path]))).toEqual(names);
    }
    expectClean(root);
  });

  it('case-only URL differences (/x and /X) get names that differ case-insensitively, and keep them', async () => {
    await mustRun(['topic', 'create', '--yes', '--title', 'Case', '--web', `${site.url}/x`, '--web', `${site.url}/X`, '--json'], root);
    const dir = join(root, 'references', 'topic-case');
    const paths = manifest(dir).map((r) => r.path.toLowerCase());
    expect(new Set(paths).size).toBe(2);
    await mustRun(['refresh', 'topic-case', '--json'], root);
    expectEachOnce(dir, ['lowercase', 'uppercase']);
  });

  for (const order of ['git-first', 'web-first'] as const) {
    it(`a git file named like a web page's slug (${order}) is never overwritten by the page, nor the page by it`, async () => {
      const repo = makeRepo(join(tmp.path, `repo-${order}`), {
        [`${slug}-guide.md`]: '# From git\n\nGitwords are here.\n',
        'README.md': '# Readme\n\nReadme words.\n',
      });
      const id = `mixed-${order}`;
      const git = { type: 'git', url: repo.url };
      const web = { type: 'web', url: `${site.url}/guide.html` };
      const sources = order === 'git-first' ? [git, web] : [web, git];
      await mustRun(['topic', 'create', '--yes', '--json', '--input', JSON.stringify({ topic_id: id, title: id, sources })], root);
      const dir = join(root, 'references', id);
      const before = contents(dir);
      expect(Object.values(before).some((t) => t.includes('alpha'))).toBe(true);
      const names = manifest(dir).map((r) => r.path.toLowerCase());
      expect(new Set(names).size).toBe(names.length);

      // Upstream moves: refresh re-fetches the repository and the page.
      repo.commit({ 'README.md': '# Readme\n\nReadme words, revised.\n' });
      const r = await mustRun(['refresh', id, '--json'], root);
      expect(r.json.topics[0].removed).toBe(0);
      const after = contents(dir);
      expect(Object.values(after).filter((t) => t.includes('alpha'))).toHaveLength(1);
      // What the git source had at create time it still has, under the same name.
      for (const [p, text] of Object.entries(before)) if (text.includes('Gitwords')) expect(after[p]).toBe(text);
      const again = manifest(dir).map((x) => x.path.toLowerCase());
      expect(new Set(again).size).toBe(again.length);
      expect(again.sort()).toEqual(names.sort());
      expectClean(root);
    });
  }
});
