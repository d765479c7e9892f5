/**
 * Issue 12 item 1 through the built binary: a heading with no body of its own (one straight
 * before a subsection too big to share a chunk with it, one at the end of a file) is never a
 * search hit by itself; the hit carries the text below it.
 */
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const sentences = (n: number, seed: string): string => Array.from({ length: n }, (_, i) => `Option ${seed}${i} changes how the tool reads its input files.`).join(' ');

describe('bare headings are never a search hit of their own', () => {
  const tmp = tmpDir('tkoma-bare-headings-');
  const root = join(tmp.path, 'kb');
  const id = 'topic-bare';

  beforeAll(async () => {
    const repo = makeRepo(join(tmp.path, 'upstream'), {
      'README.md': `# Tool\n\n${sentences(30, 'intro')}\n\n## Configuration\n\n### Options reference\n\n${sentences(40, 'opt')}\n\n## Changelog\n`,
    });
    await freshRoot(root);
    const request = { title: 'Tool', body: '# Tool\n\nA tool.\n', sources: [{ type: 'git', url: repo.url }], topic_id: id };
    const r = await cli(['topic', 'create', '--json', '--yes', '--input', JSON.stringify(request)], { root });
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  for (const [question, heading] of [
    ['configuration', '## Configuration'],
    ['changelog', '## Changelog'],
  ] as const) {
    it(`"${question}" finds its heading with the text beside it`, async () => {
      const r = await cli(['search', question, '--topic', id, '--json'], { root });
      expect(r.code, r.stderr).toBe(0);
      const hit = r.json.results.find((h: { snippet: string }) => h.snippet.includes(heading));
      expect(hit, JSON.stringify(r.json.results)).toBeDefined();
      const got = await cli(['get', '--topic', id, '--path', 'README.md', '--json'], { root });
      const lines = (got.json.content as string).split('\n').slice(hit.start_line - 1, hit.end_line);
      expect(lines.some((l) => l.startsWith('Option '))).toBe(true);
    });
  }
});
