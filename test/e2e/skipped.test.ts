/**
 * Issue 12 item 4 and issue 13 point 7 through the built binary, on a real git repository:
 * output folders are dropped only at a package root (a root `dist/` of bundles goes, `src/build/`
 * of real code stays), every skipped path is recorded in `.tkoma-skipped.jsonl` and counted per
 * reason and folder, `get` on one answers SKIPPED, and `--dry-run` of create and refresh tells
 * all of it while writing nothing. A repository whose only code is its `dist/` keeps it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const minified = `!function(e){${'var a=e+1;'.repeat(400)}}(window);\n`;

/** Everything the root holds outside .git, with sizes and times, and the state of its repository. */
function rootState(root: string): { head: string; status: string; files: string[] } {
  const files: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (rel === '' && e.name === '.git') continue;
      const p = join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      const st = statSync(p);
      files.push(`${r} ${e.isDirectory() ? 'dir' : st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(p, r);
    }
  };
  walk(root, '');
  return { head: git(root, 'rev-parse', 'HEAD'), status: git(root, 'status', '--porcelain', '--ignored'), files: files.sort() };
}

describe('skipped files: recorded, counted, explained; dry runs write nothing', () => {
  const tmp = tmpDir('tkoma-skipped-');
  const root = join(tmp.path, 'kb');
  let repo: ReturnType<typeof makeRepo>;
  const id = 'topic-bundler';
  let request: Record<string, unknown>;

  beforeAll(async () => {
    repo = makeRepo(join(tmp.path, 'upstream'), {
      'package.json': '{"name":"bundler"}\n',
      'README.md': '# Bundler\n\nBundles modules into one file.\n',
      'src/lib.rs': 'pub mod build;\npub fn run() {}\n',
      'src/build/mod.rs': 'pub fn bundle_modules(entry: &str) -> String {\n    entry.to_string()\n}\n',
      'src/build/graph.rs': 'pub struct ModuleGraph {\n    pub nodes: Vec<String>,\n}\n',
      'dist/app.min.js': minified,
      'dist/index.js': 'export function bundle(entry) {\n  return entry;\n}\n',
      'dist/index.d.ts': 'export declare function bundle(entry: string): string;\n',
      'Cargo.lock': '# lock\n',
      'node_modules/left-pad/index.js': 'module.exports = (s) => s;\n',
    });
    request = { title: 'Bundler', body: '# Bundler\n\nA bundler.\n', sources: [{ type: 'git', url: repo.url }], topic_id: id };
    await freshRoot(root);
  });
  afterAll(() => tmp.cleanup());

  it('create --dry-run lists the files, the skips per reason and folder, and the estimate; nothing is written', async () => {
    const before = rootState(root);
    const r = await cli(['topic', 'create', '--json', '--dry-run', '--input', JSON.stringify(request)], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'dry_run', operation: 'create', topic_id: id, file_count: 5 });
    expect(r.json.token).toBeUndefined();
    expect(r.json.files.map((f: { path: string }) => f.path)).toEqual(['README.md', 'package.json', 'src/build/graph.rs', 'src/build/mod.rs', 'src/lib.rs']);
    expect(r.json.total_bytes).toBeGreaterThan(100);
    expect(r.json.skipped).toMatchObject({ count: 5, by_reason: { generated: 3, lockfile: 1, node_modules: 1 } });
    expect(r.json.skipped.by_folder).toEqual(
      expect.arrayContaining([
        { folder: 'dist/', count: 3, by_reason: { generated: 3 } },
        { folder: 'node_modules/left-pad/', count: 1, by_reason: { node_modules: 1 } },
        { folder: './', count: 1, by_reason: { lockfile: 1 } },
      ]),
    );
    expect(r.json.estimate.chunks).toBeGreaterThan(0);
    expect(r.json.estimate.summary).toMatch(/searchable in/);
    expect(rootState(root)).toEqual(before);

    const text = await cli(['topic', 'create', '--dry-run', '--input', JSON.stringify(request)], { root });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Dry run: would create ${id}`);
    expect(text.stdout).toContain('src/build/mod.rs');
    expect(text.stdout).toMatch(/skipped 5: generated 3, /);
    expect(text.stdout).toContain('by folder: dist/ 3 (generated)');
    expect(text.stdout).toMatch(/estimate: ~\d+ chunks?, searchable in/);
    expect(rootState(root)).toEqual(before);
  });

  it('phase 1 counts the skips per reason and per folder', async () => {
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request)], { root });
    expect(r.code).toBe(4);
    expect(r.json.skipped).toMatchObject({ count: 5, by_reason: { generated: 3, lockfile: 1, node_modules: 1 } });
    expect(r.json.skipped.by_folder[0]).toEqual({ folder: 'dist/', count: 3, by_reason: { generated: 3 } });
  });

  it('create records every skipped path in a committed .tkoma-skipped.jsonl that is never indexed', async () => {
    const r = await cli(['topic', 'create', '--json', '--yes', '--input', JSON.stringify(request)], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.skipped).toMatchObject({ count: 5, file: '.tkoma-skipped.jsonl', by_reason: { generated: 3 } });
    expect(r.json.skipped.by_folder[0]).toMatchObject({ folder: 'dist/', count: 3 });
    const dir = join(root, 'references', id);
    expect(existsSync(join(dir, 'src/build/mod.rs'))).toBe(true);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
    const records = readFileSync(join(dir, '.tkoma-skipped.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((x: { path: string; reason: string }) => `${x.path} ${x.reason}`)).toEqual([
      'Cargo.lock lockfile',
      'dist/app.min.js generated',
      'dist/index.d.ts generated',
      'dist/index.js generated',
      'node_modules/left-pad/index.js node_modules',
    ]);
    expect(records[1]).toEqual({ path: 'dist/app.min.js', reason: 'generated', source: repo.url, bytes: minified.length });
    expect(git(root, 'ls-files', `references/${id}/.tkoma-skipped.jsonl`)).toBe(`references/${id}/.tkoma-skipped.jsonl`);
    expect(git(root, 'status', '--porcelain')).toBe('');
    // Metadata, not reference text: no search hit, and no `get` of it.
    const hits = await cli(['search', 'node_modules left-pad generated', '--topic', id, '--json'], { root });
    expect(hits.json.results.map((h: { path: string }) => h.path)).not.toContain('.tkoma-skipped.jsonl');
    const meta = await cli(['get', '--topic', id, '--path', '.tkoma-skipped.jsonl', '--json'], { root });
    expect(meta.json.error.code).toBe('INVALID_PATH');
  });

  it('get on a skipped path answers SKIPPED with the reason and how to include it', async () => {
    const r = await cli(['get', '--topic', id, '--path', 'dist/index.js', '--json'], { root });
    expect(r.code).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'SKIPPED', path: 'dist/index.js', reason: 'generated', source: repo.url });
    expect(r.json.error.hint).toContain('`paths`');
    const text = await cli(['get', '--topic', id, '--path', 'Cargo.lock'], { root });
    expect(text.code).toBe(3);
    expect(text.stderr).toMatch(/skipped "Cargo\.lock" when fetching \(lockfile\)/);
    const missing = await cli(['get', '--topic', id, '--path', 'nowhere.md', '--json'], { root });
    expect(missing.json.error.code).toBe('FILE_NOT_FOUND');
    const kept = await cli(['get', '--topic', id, '--path', 'src/build/mod.rs', '--json'], { root });
    expect(kept.json.content).toContain('bundle_modules');
  });

  it('refresh --dry-run reports added, changed, removed and skipped files; the topic, index and git stay as they were', async () => {
    repo.commit(
      { 'README.md': '# Bundler\n\nBundles modules, now faster.\n', 'docs/usage.md': '# Usage\n\nRun it.\n', 'dist/extra.js': 'export const x = 1;\n' },
      ['src/lib.rs'],
    );
    const before = rootState(root);
    const r = await cli(['refresh', id, '--dry-run', '--json'], { root });
    expect(r.code, r.stderr).toBe(0);
    const t = r.json.topics[0];
    expect(t).toMatchObject({ topic_id: id, dry_run: true, added: ['docs/usage.md'], changed: ['README.md'], removed: ['src/lib.rs'], unchanged: 3, conflicts: [] });
    expect(t.sources[0]).toMatchObject({ status: 'updated', new_commit: repo.head() });
    expect(t.skipped).toMatchObject({ count: 6, by_reason: { generated: 4 } });
    expect(t.estimate.chunks).toBeGreaterThan(0);
    expect(rootState(root)).toEqual(before);

    const text = await cli(['refresh', id, '--dry-run'], { root });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Dry run: ${id} would get +1 ~1 -1 (3 unchanged). Nothing was written.`);
    expect(text.stdout).toContain('+ docs/usage.md');
    expect(text.stdout).toContain('by folder: dist/ 4 (generated)');
    expect(rootState(root)).toEqual(before);
  });

  it('refresh rewrites the record: the new skipped file appears, and get answers SKIPPED for it', async () => {
    const r = await cli(['refresh', id, '--json'], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.topics[0]).toMatchObject({ added: 1, changed: 1, removed: 1 });
    expect(r.json.topics[0].skipped).toMatchObject({ count: 6, file: '.tkoma-skipped.jsonl', by_reason: { generated: 4 } });
    const got = await cli(['get', '--topic', id, '--path', 'dist/extra.js', '--json'], { root });
    expect(got.json.error).toMatchObject({ code: 'SKIPPED', reason: 'generated' });
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'show', '--stat', '--format=', 'HEAD')).toContain('.tkoma-skipped.jsonl');
  });
});

describe('a repository whose only code is its dist/ keeps it (a package committed as published)', () => {
  const tmp = tmpDir('tkoma-only-dist-');
  afterAll(() => tmp.cleanup());

  it('create --dry-run lists dist/ as the files to fetch, and skips nothing', async () => {
    const repo = makeRepo(join(tmp.path, 'upstream'), {
      'package.json': '{"name":"tiny-toml"}\n',
      'README.md': '# tiny-toml\n\nA TOML parser.\n',
      'dist/index.js': 'export { parse } from "./parse.js";\n',
      'dist/parse.js': 'export function parse(text) {\n  throw new TomlError("line 1, column 1");\n}\n',
      'dist/index.d.ts': 'export declare function parse(text: string): unknown;\n',
    });
    const root = join(tmp.path, 'kb');
    await freshRoot(root);
    const request = { title: 'tiny-toml', sources: [{ type: 'git', url: repo.url }] };
    const r = await cli(['topic', 'create', '--json', '--dry-run', '--input', JSON.stringify(request)], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.files.map((f: { path: string }) => f.path)).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'dist/parse.js', 'package.json']);
    expect(r.json.skipped.count).toBe(0);
  });
});

describe('the repository’s own .gitattributes decide what is generated or vendored', () => {
  const tmp = tmpDir('tkoma-gitattributes-');
  const root = join(tmp.path, 'kb');
  const id = 'topic-marked';
  let request: Record<string, unknown>;
  let url: string;

  beforeAll(async () => {
    const repo = makeRepo(join(tmp.path, 'upstream'), {
      'package.json': '{"name":"marked"}\n',
      'README.md': '# Marked\n\nA client for the orders API.\n',
      '.gitattributes': '# what GitHub should not count\napi/generated/** linguist-generated\n*.snap linguist-generated=true\nthird/** linguist-vendored\ndist/** -linguist-generated\n',
      'api/generated/client.ts': 'export function listOrders(): Promise<Order[]> {\n  return fetchJson("/orders");\n}\n',
      'api/handwritten.ts': 'export function retryOrders(times: number): number {\n  return times + 1;\n}\n',
      'src/view.snap': 'exports[`view 1`] = `<div>orders</div>`;\n',
      'third/lib/util.js': 'module.exports = function clamp(n) {\n  return Math.max(0, n);\n};\n',
      'dist/index.js': 'export function ordersEntry() {\n  return "orders";\n}\n',
      'pkg/web/.gitattributes': '*.js linguist-vendored\nown.js -linguist-vendored\n',
      'pkg/web/lib.js': 'export const copied = 1;\n',
      'pkg/web/own.js': 'export const written = 1;\n',
    });
    // A server that honours the blob filter: the attributes files must be downloaded on purpose.
    git(repo.dir, 'config', 'uploadpack.allowFilter', 'true');
    url = repo.url;
    request = { title: 'Marked', body: '# Marked\n\nOrders client.\n', sources: [{ type: 'git', url }], topic_id: id };
    await freshRoot(root);
  });
  afterAll(() => tmp.cleanup());

  it('phase 1 counts the marked files under generated and vendored', async () => {
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request)], { root });
    expect(r.code, r.stderr).toBe(4);
    expect(r.json.skipped.by_reason).toMatchObject({ generated: 2, vendored: 2 });
    expect(r.json.skipped.by_folder).toEqual(expect.arrayContaining([{ folder: 'api/generated/', count: 1, by_reason: { generated: 1 } }]));
  });

  it('create skips them, records them with their reason, and keeps what the repository un-marks', async () => {
    const r = await cli(['topic', 'create', '--json', '--yes', '--input', JSON.stringify(request)], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.skipped.by_reason).toMatchObject({ generated: 2, vendored: 2 });
    const dir = join(root, 'references', id);
    for (const kept of ['README.md', 'api/handwritten.ts', 'dist/index.js', 'pkg/web/own.js']) expect(existsSync(join(dir, kept)), kept).toBe(true);
    const records = readFileSync(join(dir, '.tkoma-skipped.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { path: string; reason: string });
    const byPath = Object.fromEntries(records.map((x) => [x.path, x.reason]));
    expect(byPath).toMatchObject({
      'api/generated/client.ts': 'generated',
      'src/view.snap': 'generated',
      'third/lib/util.js': 'vendored',
      'pkg/web/lib.js': 'vendored',
    });
    expect(Object.keys(byPath)).not.toContain('dist/index.js');
    expect(Object.keys(byPath)).not.toContain('pkg/web/own.js');
  });

  it('get on a marked path answers SKIPPED with its reason', async () => {
    const gen = await cli(['get', '--topic', id, '--path', 'api/generated/client.ts', '--json'], { root });
    expect(gen.code).toBe(3);
    expect(gen.json.error).toMatchObject({ code: 'SKIPPED', path: 'api/generated/client.ts', reason: 'generated', source: url });
    const vendored = await cli(['get', '--topic', id, '--path', 'pkg/web/lib.js', '--json'], { root });
    expect(vendored.json.error).toMatchObject({ code: 'SKIPPED', reason: 'vendored' });
    const kept = await cli(['get', '--topic', id, '--path', 'dist/index.js', '--json'], { root });
    expect(kept.json.content).toContain('ordersEntry');
  });
});
