/**
 * The whole reference-topic lifecycle through the built binary: init, two-phase create from a
 * local git repository and a local web page, list, recent, show, get, search, file status,
 * update, an upstream commit then refresh, pinned refs, delete — and the git history it leaves.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { allowLocalSources, cli, git, makeRepo, serve, type Served, tmpDir } from '../helpers/fixtures.js';

const html = `<!doctype html><html><head><title>Widgets Guide</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us navigation link</a></nav>
<main><h1>Widgets Guide</h1><p>Widgets are configured with a frobnication level.</p>
<pre>widget.frobnicate(level=3)</pre>
<table><tr><th>Option</th><th>Default</th></tr><tr><td>level</td><td>1</td></tr></table></main>
<footer>Copyright footer text</footer></body></html>`;

describe('topic lifecycle through the CLI', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  let repo: ReturnType<typeof makeRepo>;
  let web: Served;
  let request: Record<string, unknown>;
  const ghost = ['--ghost', 'ghost-a', '--model', 'test-model'];

  beforeAll(async () => {
    repo = makeRepo(join(tmp.path, 'upstream'), {
      'README.md': '# Widgets\n\nA library for widgets. See docs/ for the guide.\n',
      'docs/guide.md': '# Guide\n\n## Installing\n\nRun the installer.\n\n## Frobnication\n\nSet the frobnication level between 1 and 5.\n',
      'src/widget.py': 'def frobnicate(level):\n    """Frobnicate the widget."""\n    return level * 2\n',
      'src/extra.py': 'def unused():\n    return None\n',
      'package-lock.json': '{}',
    });
    web = await serve({ '/guide': { type: 'text/html; charset=utf-8', body: html } });
    request = {
      title: 'Widgets Library',
      body: '# Widgets Library\n\nWidgets with frobnication levels.\n',
      sources: [
        { type: 'git', url: repo.url, paths: ['README.md', 'docs/', 'src/widget.py'] },
        { type: 'web', url: `${web.url}/guide` },
      ],
      tags: ['widgets', 'python'],
      max_age_days: 30,
      trust_score: 7,
    };
  });

  afterAll(async () => {
    await web?.close();
    tmp.cleanup();
  });

  it('init creates a git-versioned root, and is idempotent', async () => {
    const r = await cli(['init', '--json'], { root });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ created: true });
    expect(existsSync(join(root, '.git'))).toBe(true);
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toContain('.tkoma/');
    expect(existsSync(join(root, 'skills/reference-researcher/SKILL.md'))).toBe(true);
    const again = await cli(['init', '--json'], { root });
    expect(again.json).toMatchObject({ created: false });
    expect(git(root, 'rev-list', '--count', 'HEAD')).toBe('1');
    allowLocalSources(root);
  });

  let requestId = '';
  it('phase 1 gathers metadata, writes nothing, and asks the operator (a pending request, no token)', async () => {
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request)], { root });
    expect(r.code).toBe(4);
    expect(r.json.status).toBe('approval_required');
    expect(r.json.reason).toBe('REFERENCE_TOPIC_CREATE');
    expect(r.json.topic_id).toBe('topic-widgets-library');
    // 3 kept files of the filtered repository (README, docs/guide.md, src/widget.py) + 1 page.
    expect(r.json.sources[0]).toMatchObject({ type: 'git', file_count: 3, default_branch: 'main' });
    expect(r.json.sources[0].total_bytes).toBeGreaterThan(100);
    // The operator sees where it goes: the local repository's path, the page's host.
    expect(r.json.summary).toMatch(/^3 files, .* \(filtered from local repository \/.*upstream\) \+ 1 web page on 127\.0\.0\.1:\d+$/);
    expect(r.stderr).toContain(`APPROVAL_REQUIRED:REFERENCE_TOPIC_CREATE:${r.json.summary}`);
    expect(r.json).toMatchObject({ approval_mode: 'operator', request_id: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect(r.json.token).toBeUndefined();
    expect(existsSync(join(root, 'references', 'topic-widgets-library'))).toBe(false);
    expect(git(root, 'rev-list', '--count', 'HEAD')).toBe('2'); // init, and the operator's settings
    requestId = r.json.request_id;
  });

  it("the operator's yes approves exactly its request: a changed one is asked again", async () => {
    expect((await cli(['approve', requestId, '--json'], { root })).json).toMatchObject({ request_id: requestId, state: 'approved' });
    const other = { ...request, sources: [{ type: 'git', url: repo.url }, (request.sources as unknown[])[1]] };
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(other)], { root });
    expect(r.code).toBe(4);
    expect(r.json.request_id).not.toBe(requestId);
    expect(existsSync(join(root, 'references', 'topic-widgets-library'))).toBe(false);
  });

  it('phase 2, the identical request once approved, fetches, commits once, and indexes', async () => {
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request), ...ghost], { root });
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack traces
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'created', topic_id: 'topic-widgets-library', file_count: 4 });
    expect(r.json.chunk_count).toBeGreaterThanOrEqual(4);
    const dir = join(root, 'references', 'topic-widgets-library');
    expect(existsSync(join(dir, 'docs/guide.md'))).toBe(true);
    expect(existsSync(join(dir, 'src/extra.py'))).toBe(false);
    // The page is saved under its URL slug (host, port, path).
    const port = new URL(web.url).port;
    const page = readFileSync(join(dir, `127.0.0.1-${port}-guide.md`), 'utf8');
    expect(page).toContain('frobnicate(level=3)');
    expect(page).not.toContain('Copyright footer');
    const topicMd = readFileSync(join(dir, 'topic.md'), 'utf8');
    expect(topicMd).toContain(`commit = "${repo.head()}"`);
    expect(topicMd).toContain('ghost = "ghost-a"');
    const manifest = readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(manifest.find((m) => m.path === 'src/widget.py')).toMatchObject({ role: 'code', source_url: repo.url, commit: repo.head() });
    expect(manifest.find((m) => m.path === 'docs/guide.md')).toMatchObject({ role: 'docs' });
    expect(git(root, 'log', '-1', '--format=%an|%s')).toMatch(/^ghost-a \(test-model\)\|create topic topic-widgets-library: 4 files from .*upstream@[0-9a-f]{7} \+ 1 web page$/);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('the same request cannot create the topic twice', async () => {
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request)], { root });
    expect(r.json.error.code).toBe('TOPIC_EXISTS');
    expect(r.code).toBe(6);
  });

  it('list, recent and show report the topic', async () => {
    const list = await cli(['topic', 'list', '--json'], { root });
    expect(list.json).toHaveLength(1);
    expect(list.json[0]).toMatchObject({ topic_id: 'topic-widgets-library', is_stale: false, source_count: 2, file_count: 4, created_by_ghost: 'ghost-a', max_age_days: 30 });
    const recent = await cli(['topic', 'recent'], { root });
    expect(recent.stdout).toContain('## Available Reference Topics');
    expect(recent.stdout).toContain('- Widgets Library (`topic-widgets-library`) — widgets, python');
    const show = await cli(['topic', 'show', 'topic-widgets-library', '--json'], { root });
    expect(show.json.files.map((f: { path: string }) => f.path)).toContain('src/widget.py');
  });

  it('get returns a file, a line range, and respects max chars', async () => {
    const whole = await cli(['get', '--topic', 'topic-widgets-library', '--path', 'docs/guide.md', '--json'], { root });
    expect(whole.json.content).toContain('## Frobnication');
    expect(whole.json.source_url).toBe(repo.url);
    const range = await cli(['get', '--id', 'topic-widgets-library/docs/guide.md#L3-L5', '--json'], { root });
    expect(range.json).toMatchObject({ start_line: 3, end_line: 5, content: '## Installing\n\nRun the installer.' });
    const cut = await cli(['get', '--topic', 'topic-widgets-library', '--path', 'docs/guide.md', '--max-chars', '7', '--json'], { root });
    expect(cut.json).toMatchObject({ content: '# Guide', truncated: true });
  });

  it('search finds the answer with provenance', async () => {
    const r = await cli(['search', 'frobnication level', '--json'], { root });
    expect(r.code).toBe(0);
    expect(r.json.topic.topic_id).toBe('topic-widgets-library');
    expect(r.json.topic.body).toContain('Widgets with frobnication levels');
    expect(r.json.results.length).toBeGreaterThan(0);
    const hit = r.json.results[0];
    // The function that implements it and the guide that explains it both answer; both must come back.
    expect(hit).toMatchObject({ topic_id: 'topic-widgets-library', is_stale: false });
    expect(r.json.results.map((h: { path: string }) => h.path)).toEqual(expect.arrayContaining(['src/widget.py', 'docs/guide.md']));
    expect(typeof hit.start_line).toBe('number');
    expect(hit.source_url).toMatch(/^file:\/\//);
    expect(hit.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(r.json.vector_search.available).toBe(false);
  });

  it('file status marks files, adds a warning line, and hides obsolete files from search', async () => {
    const bad = await cli(['file', 'status', '--topic', 'topic-widgets-library', '--path', 'docs/guide.md', '--status', 'wrong', '--reason', 'x', '--json'], { root });
    expect(bad.code).toBe(2);
    expect(bad.json.error.code).toBe('INVALID_ENUM');
    const r = await cli(['file', 'status', '--topic', 'topic-widgets-library', '--path', 'docs/guide.md', '--status', 'obsolete', '--reason', 'describes v0', '--json', ...ghost], { root });
    expect(r.code).toBe(0);
    const topicMd = readFileSync(join(root, 'references/topic-widgets-library/topic.md'), 'utf8');
    expect(topicMd).toContain('> **Warning:** `docs/guide.md` is marked obsolete: describes v0');
    const s = await cli(['search', 'installer', '--topic', 'topic-widgets-library', '--json'], { root });
    expect(s.json.results.map((h: { path: string }) => h.path)).not.toContain('docs/guide.md');
    expect(git(root, 'log', '-1', '--format=%s')).toBe('mark docs/guide.md in topic-widgets-library obsolete: describes v0');
  });

  it('an upstream commit, then refresh: counts, fetched_at, commit, one commit', async () => {
    const before = readFileSync(join(root, 'references/topic-widgets-library/topic.md'), 'utf8');
    const newHead = repo.commit({ 'docs/new.md': '# New page\n\nQuuxification explained.\n', 'README.md': '# Widgets\n\nNow with quux.\n' }, ['docs/guide.md']);
    const r = await cli(['refresh', 'topic-widgets-library', '--json', ...ghost], { root });
    expect(r.code).toBe(0);
    const t = r.json.topics[0];
    expect(t).toMatchObject({ topic_id: 'topic-widgets-library', added: 1, changed: 1, removed: 1 });
    expect(t.unchanged).toBe(2); // src/widget.py and the web page
    const after = readFileSync(join(root, 'references/topic-widgets-library/topic.md'), 'utf8');
    expect(after).toContain(`commit = "${newHead}"`);
    expect(after).not.toContain('docs/guide.md'); // removed file, and its status entry
    expect(after.match(/fetched_at = "(.*)"/)![1] > before.match(/fetched_at = "(.*)"/)![1]).toBe(true);
    expect(git(root, 'log', '-1', '--format=%s')).toMatch(/^refresh topic topic-widgets-library: \+1 ~1 -1 \(2 unchanged\)/);
    const s = await cli(['search', 'quuxification', '--topic', 'topic-widgets-library', '--json'], { root });
    expect(s.json.results[0].path).toBe('docs/new.md');
    // Nothing upstream changed: the git source is up to date after a cheap check.
    const again = await cli(['refresh', 'topic-widgets-library', '--json'], { root });
    expect(again.json.topics[0].sources[0].status).toBe('up_to_date');
    // The web page was fetched again and is the same: reported as up to date, not updated.
    expect(again.json.topics[0].sources[1]).toMatchObject({ type: 'web', status: 'up_to_date' });
  });

  it('a pinned commit stays pinned on refresh', async () => {
    const pinned = repo.head();
    const req = { title: 'Pinned Widgets', sources: [{ type: 'git', url: repo.url, ref: pinned, paths: ['README.md'] }] };
    const c = await cli(['topic', 'create', '--json', '--yes', '--input', JSON.stringify(req)], { root });
    expect(c.code).toBe(0);
    repo.commit({ 'README.md': '# Widgets\n\nChanged after pinning.\n' });
    const r = await cli(['refresh', 'topic-pinned-widgets', '--json'], { root });
    expect(r.json.topics[0].sources[0]).toMatchObject({ status: 'up_to_date', new_commit: pinned });
    expect(readFileSync(join(root, 'references/topic-pinned-widgets/README.md'), 'utf8')).toContain('Now with quux');
  });

  it('update marks a topic obsolete: gone from search and list, kept with --include-obsolete', async () => {
    const r = await cli(['topic', 'update', 'topic-pinned-widgets', '--status', 'obsolete', '--json', ...ghost], { root });
    expect(r.json).toMatchObject({ changed: ['status'], status: 'obsolete' });
    const list = await cli(['topic', 'list', '--json'], { root });
    expect(list.json.map((t: { topic_id: string }) => t.topic_id)).toEqual(['topic-widgets-library']);
    const all = await cli(['topic', 'list', '--include-obsolete', '--json'], { root });
    expect(all.json).toHaveLength(2);
    const s = await cli(['search', 'quux', '--all', '--json'], { root });
    expect(s.json.results.every((h: { topic_id: string }) => h.topic_id !== 'topic-pinned-widgets')).toBe(true);
  });

  it('delete asks for --yes without a terminal, then removes files and index entries in one commit', async () => {
    const refused = await cli(['delete', 'topic-pinned-widgets', '--json'], { root });
    expect(refused.json.error.code).toBe('CONFIRMATION_REQUIRED');
    expect(existsSync(join(root, 'references/topic-pinned-widgets'))).toBe(true);
    const r = await cli(['delete', 'topic-pinned-widgets', '--yes', '--json'], { root });
    expect(r.json).toMatchObject({ topic_id: 'topic-pinned-widgets', deleted: true });
    expect(existsSync(join(root, 'references/topic-pinned-widgets'))).toBe(false);
    expect(git(root, 'log', '-1', '--format=%s')).toMatch(/^delete topic topic-pinned-widgets/);
    const s = await cli(['get', '--topic', 'topic-pinned-widgets', '--path', 'README.md', '--json'], { root });
    expect(s.json.error.code).toBe('TOPIC_NOT_FOUND');
  });

  it('leaves a linear history with one commit per mutation and nothing uncommitted', () => {
    // Embedder records (when the choice is first made) are their own commits; the rest, newest first:
    const subjects = git(root, 'log', '--format=%s').split('\n').filter((s) => !s.startsWith('record embedder'));
    expect(subjects.map((s) => s.split(' ').slice(0, 3).join(' '))).toEqual([
      'delete topic topic-pinned-widgets:',
      'update topic topic-pinned-widgets:',
      'refresh topic topic-pinned-widgets:',
      'create topic topic-pinned-widgets:',
      'refresh topic topic-widgets-library:',
      'refresh topic topic-widgets-library:',
      'mark docs/guide.md in',
      'create topic topic-widgets-library:',
      'allow sources on',
      'init knowledge root',
    ]);
    expect(git(root, 'rev-list', '--merges', '--count', 'HEAD')).toBe('0');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });
});
