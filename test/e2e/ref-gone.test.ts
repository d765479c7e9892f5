/**
 * Issue 9, lesser finding: when the branch a topic follows is deleted upstream and a tag of the
 * same name exists, refresh used to switch to the tag silently. Now it does not switch: the
 * source keeps its files and says why (status `ref_gone`, a warning naming the tag). Real git.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { expectClean, mustRun } from '../helpers/crash.js';
import { cli, git, makeRepo, serve, type Served, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

describe('a followed branch deleted upstream, with a tag of the same name', () => {
  const tmp = tmpDir('tkoma-ref-gone-');
  const root = join(tmp.path, 'kb');
  let site: Served;
  let repo: ReturnType<typeof makeRepo>;

  beforeAll(async () => {
    site = await serve({ '/page': { type: 'text/html', body: '<main><p>Page words.</p></main>' } });
    repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Old\n\nTagged text.\n' });
    git(repo.dir, 'tag', 'v1'); // the tag stays at the first commit
    git(repo.dir, 'checkout', '-q', '-b', 'v1');
    repo.commit({ 'README.md': '# Branch\n\nBranch text.\n' });
    git(repo.dir, 'checkout', '-q', 'main');
    await freshRoot(root);
    const sources = [{ type: 'git', url: repo.url, ref: 'v1' }, { type: 'web', url: `${site.url}/page` }];
    await mustRun(['topic', 'create', '--yes', '--json', '--input', JSON.stringify({ topic_id: 'follow', title: 'Follow', sources })], root);
    expect(readFileSync(join(root, 'references', 'follow', 'README.md'), 'utf8')).toContain('Branch text');
  });
  afterAll(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('refresh does not switch to the tag: the source keeps its files and the result says so', async () => {
    const topicBefore = readFileSync(join(root, 'references', 'follow', 'topic.md'), 'utf8');
    git(repo.dir, 'branch', '-D', 'v1');
    const r = await mustRun(['refresh', 'follow', '--json'], root);
    const t = r.json.topics[0];
    const src = t.sources.find((s: { type: string }) => s.type === 'git');
    expect(src.status).toBe('ref_gone');
    expect(src.error).toMatch(/branch "v1" no longer exists/);
    expect(src.error).toMatch(/refs\/tags\/v1/);
    expect(t.warnings.join('\n')).toMatch(/branch "v1" no longer exists/);
    expect(readFileSync(join(root, 'references', 'follow', 'README.md'), 'utf8')).toContain('Branch text');
    // The recorded commit is the branch's, not the tag's.
    const commitLine = (s: string) => s.split('\n').find((l) => l.startsWith('commit ='));
    expect(commitLine(readFileSync(join(root, 'references', 'follow', 'topic.md'), 'utf8'))).toBe(commitLine(topicBefore));
    expectClean(root);
  });

  it('with only that source, refresh fails and names the reason', async () => {
    await mustRun(['topic', 'create', '--yes', '--json', '--input', JSON.stringify({ topic_id: 'lone', title: 'Lone', sources: [{ type: 'git', url: repo.url, ref: 'main' }] })], root);
    git(repo.dir, 'checkout', '-q', '-b', 'other');
    git(repo.dir, 'tag', 'main', 'main');
    git(repo.dir, 'branch', '-D', 'main');
    const r = await cli(['refresh', 'lone', '--json'], { root });
    expect(r.code).not.toBe(0);
    expect(JSON.stringify(r.json)).toMatch(/branch \\"main\\" no longer exists/);
  });
});
