/**
 * npm package sources end to end: a real registry on 127.0.0.1 serving package documents and
 * tarballs made by `npm pack`, the built CLI configured through npm's own variables and .npmrc.
 * Create at a range, an exact version and a dist-tag; refresh across versions; hits and `get`
 * carry the version; a tarball whose integrity does not match is refused; a scoped package
 * resolves through its own registry with its token. Git sources with a version range, too.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { expectClean } from '../helpers/crash.js';
import { cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { npmPack, type PackedVersion, startRegistry, type TestRegistry } from '../helpers/npm-registry.js';
import { freshRoot } from '../helpers/roots.js';

const readme = (v: string) => `# leftish ${v}\n\nPads strings on the left. Version marker leftish-${v.replace(/\./g, '-')}.\n`;
const leftish = (v: string, extra: Record<string, string> = {}) => ({
  name: 'leftish',
  version: v,
  repository: { type: 'git', url: 'git+https://github.com/example/leftish.git' },
  gitHead: 'a'.repeat(40),
  files: { 'README.md': readme(v), 'lib/index.js': `export function leftish(s, n) { return s.padStart(n); } // ${v}\n`, 'lib/index.d.ts': 'export declare function leftish(s: string, n: number): string;\n', ...extra },
});

describe('npm package sources', () => {
  const tmp = tmpDir('tkoma-npm-');
  const root = join(tmp.path, 'kb');
  const project = join(tmp.path, 'project');
  let reg: TestRegistry;
  let scopedReg: TestRegistry;
  const packs: Record<string, PackedVersion> = {};
  let env: Record<string, string>;
  const run = (args: string[], cwd = project) => cli([...args, '--json'], { root, env, cwd });
  const ok = async (args: string[], cwd = project) => {
    const r = await run(args, cwd);
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    return r.json;
  };
  const create = (id: string, sources: unknown[], approve = ['--yes']) => run(['topic', 'create', ...approve, '--input', JSON.stringify({ topic_id: id, title: `Topic ${id}`, sources })]);
  const topicMd = (id: string) => readFileSync(join(root, 'references', id, 'topic.md'), 'utf8');

  beforeAll(async () => {
    const work = join(tmp.path, 'packs');
    for (const v of ['1.0.0', '1.1.0', '1.2.0', '2.0.0']) packs[`leftish@${v}`] = npmPack(work, leftish(v, v === '1.2.0' ? { 'docs/guide.md': '# Guide\n\nNew in 1.2.\n' } : {}));
    packs.norepo = npmPack(work, { name: 'norepo', version: '0.1.0', files: { 'README.md': '# norepo\n\nNo repository field here, quokka.\n', 'index.js': 'module.exports = 1;\n' } });
    packs.scoped = npmPack(work, { name: '@fixture/widgets', version: '3.0.0', files: { 'README.md': '# widgets\n\nScoped wombat widgets.\n' } });
    reg = await startRegistry();
    for (const v of ['1.0.0', '1.1.0']) reg.publish(packs[`leftish@${v}`]!);
    reg.publish(packs['leftish@2.0.0']!, { tag: 'next' });
    reg.publish(packs.norepo!);
    // Published with the integrity of another tarball: the download must be refused.
    reg.publish({ ...packs.norepo!, name: 'tampered', version: '1.0.0' }, { integrity: packs['leftish@1.0.0']!.integrity });

    // The scope's own registry wants its token.
    scopedReg = await startRegistry({ token: 'wombat-token' });
    scopedReg.publish(packs.scoped!);

    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'package.json'), '{"name":"project","version":"1.0.0"}');
    const host = new URL(scopedReg.url).host;
    writeFileSync(join(project, '.npmrc'), `@fixture:registry=${scopedReg.url}\n//${host}/:_authToken=\${FIXTURE_TOKEN}\n`);
    env = { npm_config_registry: reg.url, npm_config_userconfig: join(tmp.path, 'no-user-npmrc'), FIXTURE_TOKEN: 'wombat-token' };
    await ok(['init']);
    appendFileSync(join(root, 'tkoma-ref.toml'), '\n[network]\nallow = ["127.0.0.1"]\n');
    git(root, 'commit', '-qam', 'allow the local registry');
  });
  afterAll(async () => {
    await reg?.close();
    await scopedReg?.close();
    tmp.cleanup();
  });

  it('phase 1 reads only the registry documents and names the exact version', async () => {
    const r = await create('left', [{ type: 'npm', package: 'leftish', version: '^1' }], []);
    expect(r.code).toBe(4);
    const src = r.json.sources[0];
    expect(src).toMatchObject({ type: 'npm', package: 'leftish', version: '^1', resolved_version: '1.1.0', display_name: 'leftish@1.1.0', repository: 'https://github.com/example/leftish' });
    expect(src.file_count).toBe(packs['leftish@1.1.0']!.fileCount);
    expect(src.total_bytes).toBe(packs['leftish@1.1.0']!.unpackedSize);
    expect(src.integrity).toBe(packs['leftish@1.1.0']!.integrity);
    expect(r.json.summary).toContain('npm leftish@1.1.0');
    expect(reg.server.seen.some((s) => s.endsWith('.tgz'))).toBe(false);
  });

  it('creates at the newest version of a range: files under npm/<package>/, the version recorded and verified', async () => {
    const r = await create('left', [{ type: 'npm', package: 'leftish', version: '^1' }]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.sources[0]).toMatchObject({ type: 'npm', package: 'leftish', version: '1.1.0', ok: true });
    const dir = join(root, 'references', 'left', 'npm', 'leftish');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('leftish-1-1-0');
    expect(existsSync(join(dir, 'package.json'))).toBe(true);
    const md = topicMd('left');
    expect(md).toContain('package = "leftish"');
    expect(md).toContain('version = "^1"');
    expect(md).toContain('resolved_version = "1.1.0"');
    expect(md).toContain(`integrity = "${packs['leftish@1.1.0']!.integrity}"`);
    expect(md).toContain('repository = "https://github.com/example/leftish"');
    expect(md).toContain(`git_head = "${'a'.repeat(40)}"`);
    expect(md).not.toMatch(/^url = /m);
    const manifest = readFileSync(join(root, 'references', 'left', '.tkoma-files.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(manifest.every((m: { version: string; source_url: string }) => m.version === '1.1.0' && m.source_url === 'npm:leftish')).toBe(true);
    expect(git(root, 'log', '-1', '--format=%s')).toContain('npm leftish@1.1.0');
    expectClean(root);
  });

  it('every hit and get carries the version', async () => {
    const s = await ok(['search', 'pads strings left', '--topic', 'left']);
    expect(s.results.length).toBeGreaterThan(0);
    for (const h of s.results) expect(h.version).toBe('1.1.0');
    const g = await ok(['get', '--id', 'left/npm/leftish/README.md']);
    expect(g.version).toBe('1.1.0');
    expect(g.content).toContain('leftish-1-1-0');
  });

  it('refresh moves a range to its newest match and says so; an exact pin stays and shows upstream_version', async () => {
    const pinned = await create('pinned', [{ type: 'npm', package: 'leftish', version: '1.0.0' }]);
    expect(pinned.code, pinned.stdout).toBe(0);
    reg.publish(packs['leftish@1.2.0']!);
    const r = await ok(['refresh', 'left', 'pinned']);
    const left = r.topics.find((t: { topic_id: string }) => t.topic_id === 'left');
    expect(left.sources[0]).toMatchObject({ status: 'updated', version: '1.1.0 → 1.2.0' });
    expect(left.added).toBe(1); // docs/guide.md
    expect(left.changed).toBeGreaterThan(0);
    expect(topicMd('left')).toContain('resolved_version = "1.2.0"');
    expect(git(root, 'log', '-2', '--format=%s')).toContain('npm leftish@1.1.0→1.2.0');
    const pin = r.topics.find((t: { topic_id: string }) => t.topic_id === 'pinned');
    expect(pin.sources[0]).toMatchObject({ status: 'up_to_date', version: '1.0.0' });
    expect(topicMd('pinned')).toContain('upstream_version = "1.2.0"');
  });

  it('after the refresh, hits carry the new version and topic list shows the pin\'s upstream_version', async () => {
    const s = await ok(['search', 'guide new', '--topic', 'left']);
    expect(s.results[0].version).toBe('1.2.0');
    const list = await ok(['topic', 'list']);
    const byId = Object.fromEntries(list.map((t: { topic_id: string }) => [t.topic_id, t]));
    expect(byId.pinned.upstream_version).toBe('1.2.0');
    expect(byId.left.upstream_version).toBeUndefined();
    expect(byId.left.version).toBe('1.2.0');
    expectClean(root);
  });

  it('a dist-tag resolves to its version; a package without a repository field is fine', async () => {
    const r = await create('next', [{ type: 'npm', package: 'leftish', version: 'next' }, { type: 'npm', package: 'norepo' }]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.sources.map((s: { version: string }) => s.version)).toEqual(['2.0.0', '0.1.0']);
    const md = topicMd('next');
    expect(md).toContain('resolved_version = "2.0.0"');
    expect(md.split('[[sources]]')[2]).not.toContain('repository');
    expect(readFileSync(join(root, 'references', 'next', 'npm', 'norepo', 'README.md'), 'utf8')).toContain('quokka');
  });

  it('a tarball that does not match its published integrity is refused and nothing is written', async () => {
    const r = await create('bad', [{ type: 'npm', package: 'tampered' }]);
    expect(r.code).toBe(5);
    expect(r.json.error.code).toBe('SOURCE_UNREACHABLE');
    expect(r.json.error.message).toMatch(/does not match its published integrity/);
    expect(existsSync(join(root, 'references', 'bad'))).toBe(false);
    expectClean(root);
  });

  it('a scoped package resolves through its scope registry with its token; without the token it is refused', async () => {
    const r = await create('scoped', [{ type: 'npm', package: '@fixture/widgets', version: '^3' }]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(root, 'references', 'scoped', 'npm', '@fixture', 'widgets', 'README.md'), 'utf8')).toContain('wombat');
    // Outside the project its .npmrc does not apply: the default registry has no such package.
    const elsewhere = await cli(['topic', 'create', '--json', '--input', JSON.stringify({ topic_id: 'scoped2', title: 'x', sources: [{ type: 'npm', package: '@fixture/widgets' }] })], { root, env, cwd: tmp.path });
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.json.error.message).toMatch(/no package "@fixture\/widgets"/);
    // In the project without the token the scope's registry refuses, and the answer says why.
    const noToken = await cli(['topic', 'create', '--json', '--input', JSON.stringify({ topic_id: 'scoped3', title: 'x', sources: [{ type: 'npm', package: '@fixture/widgets' }] })], { root, env: { ...env, FIXTURE_TOKEN: '' }, cwd: project });
    expect(noToken.code).not.toBe(0);
    expect(noToken.json.error.message).toMatch(/401 \(the registry wants credentials/);
  });

  it('a registry on this machine is refused unless [network] allow opens it, before anything is written', async () => {
    const bare = join(tmp.path, 'kb-bare');
    expect((await cli(['init', '--json'], { root: bare, env, cwd: project })).code).toBe(0);
    const input = JSON.stringify({ topic_id: 'left', title: 'Left', sources: [{ type: 'npm', package: 'leftish' }] });
    const seen = reg.server.seen.length;
    for (const approve of [[], ['--yes']]) {
      const r = await cli(['topic', 'create', ...approve, '--json', '--input', input], { root: bare, env, cwd: project });
      expect(r.json.error?.code, r.stdout).toBe('NOT_ALLOWED');
      expect(r.code).not.toBe(0);
    }
    expect(reg.server.seen.length).toBe(seen);
    expect(existsSync(join(bare, 'references', 'left'))).toBe(false);
  });

  it('bad requests: unknown versions, bad names, url on an npm source', async () => {
    const none = await create('none', [{ type: 'npm', package: 'leftish', version: '^9' }], []);
    expect(none.code).toBe(2);
    expect(none.json.error.code).toBe('INVALID_REF');
    expect(none.json.error.message).toMatch(/no version matching "\^9"/);
    const bad = await create('bad2', [{ type: 'npm', package: 'Not A Name' }], []);
    expect(bad.json.error.code).toBe('INVALID_INPUT');
    const url = await create('bad3', [{ type: 'npm', package: 'leftish', url: 'https://x' }], []);
    expect(url.json.error.message).toMatch(/npm sources take `package` and `version`/);
    const flag = await cli(['topic', 'create', '--json', '--title', 'Flag', '--npm', 'leftish@1.0.0'], { root, env, cwd: project });
    expect(flag.json.sources[0]).toMatchObject({ package: 'leftish', resolved_version: '1.0.0' });
  });
});

describe('git sources with a version range over tags', () => {
  const tmp = tmpDir('tkoma-gitver-');
  const root = join(tmp.path, 'kb');
  let repo: ReturnType<typeof makeRepo>;
  beforeAll(async () => {
    repo = makeRepo(join(tmp.path, 'up'), { 'README.md': '# lib 0.5.0\n\nmarker fivezero\n' });
    git(repo.dir, 'tag', 'v0.5.0');
    repo.commit({ 'README.md': '# lib 0.6.0\n\nmarker sixzero\n' });
    git(repo.dir, 'tag', '-a', 'v0.6.0', '-m', 'annotated');
    repo.commit({ 'README.md': '# lib 0.6.2\n\nmarker sixtwo\n' });
    git(repo.dir, 'tag', 'v0.6.2');
    repo.commit({ 'README.md': '# lib 0.7.0\n\nmarker seven\n' });
    git(repo.dir, 'tag', 'v0.7.0');
    await freshRoot(root);
  });
  afterAll(() => tmp.cleanup());

  it('^0.6 fetches the newest matching tag, records tag and commit; refresh moves to a newer match', async () => {
    const input = JSON.stringify({ topic_id: 'lib', title: 'Lib', sources: [{ type: 'git', url: repo.url, version: '^0.6' }] });
    const p1 = await cli(['topic', 'create', '--json', '--input', input], { root });
    expect(p1.code).toBe(4);
    expect(p1.json.sources[0]).toMatchObject({ ref: 'v0.6.2', version: '^0.6' });
    const r = await cli(['topic', 'create', '--yes', '--json', '--input', input], { root });
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.sources[0]).toMatchObject({ ref: 'v0.6.2', version: 'v0.6.2', commit: git(repo.dir, 'rev-parse', 'v0.6.2') });
    const md = readFileSync(join(root, 'references', 'lib', 'topic.md'), 'utf8');
    expect(md).toContain('ref = "v0.6.2"');
    expect(md).toContain('ref_kind = "tag"');
    expect(md).toContain('version = "^0.6"');
    const s = await cli(['search', 'marker', '--topic', 'lib', '--json'], { root });
    expect(s.json.results[0].version).toBe('v0.6.2');
    expect(s.json.results[0].snippet).toContain('sixtwo');

    const same = await cli(['refresh', 'lib', '--json'], { root });
    expect(same.json.topics[0].sources[0]).toMatchObject({ status: 'up_to_date', version: 'v0.6.2' });

    git(repo.dir, 'checkout', '-q', 'v0.6.2');
    git(repo.dir, 'checkout', '-q', '-b', 'maint');
    repo.commit({ 'README.md': '# lib 0.6.3\n\nmarker sixthree\n' });
    git(repo.dir, 'tag', 'v0.6.3');
    const moved = await cli(['refresh', 'lib', '--json'], { root });
    expect(moved.code, moved.stdout).toBe(0);
    expect(moved.json.topics[0].sources[0]).toMatchObject({ status: 'updated', version: 'v0.6.2 → v0.6.3', ref: 'v0.6.2' });
    expect(readFileSync(join(root, 'references', 'lib', 'topic.md'), 'utf8')).toContain('ref = "v0.6.3"');
    expect(readFileSync(join(root, 'references', 'lib', 'README.md'), 'utf8')).toContain('sixthree');
    const g = await cli(['get', '--id', 'lib/README.md', '--json'], { root });
    expect(g.json.version).toBe('v0.6.3');
    expectClean(root);
  });

  it('ref and version together, or a version no tag matches, are refused', async () => {
    const both = await cli(['topic', 'create', '--json', '--input', JSON.stringify({ title: 'x', sources: [{ type: 'git', url: repo.url, ref: 'main', version: '^1' }] })], { root });
    expect(both.json.error.message).toMatch(/`ref` or `version`, not both/);
    const none = await cli(['topic', 'create', '--json', '--input', JSON.stringify({ title: 'x', sources: [{ type: 'git', url: repo.url, version: '^2' }] })], { root });
    expect(none.json.error.code).toBe('INVALID_REF');
    expect(none.json.error.message).toMatch(/no tag .* matches version "\^2"/);
  });
});
