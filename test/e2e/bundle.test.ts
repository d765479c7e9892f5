/**
 * The fast path runs from dist/fast.cjs through V8's code cache (src/cli/boot.ts,
 * scripts/bundle-fast.mjs). The bundle must answer exactly as the separate modules do, keep every
 * module as lazy as its import, point its rewritten import.meta at real files, and treat the
 * cache as disposable: missing, damaged, unwritable or switched off, the answer is the same.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { codeCacheDir, codeCacheFile } from '../../src/cli/boot.js';
import { cli, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

const DIST = join(PROJECT, 'dist');
const bundleText = (): string => readFileSync(join(DIST, 'fast.cjs'), 'utf8');

describe('dist/fast.cjs', () => {
  it('names its content in its first line', () => {
    const [first, ...rest] = bundleText().split('\n');
    const digest = /^\/\/ tkoma-ref fast path ([0-9a-f]{20})$/.exec(first!)?.[1];
    expect(digest).toBeDefined();
    expect(createHash('sha256').update(rest.join('\n')).digest('hex').slice(0, 20)).toBe(digest);
  });

  it('wraps every module but the entry in a lazy init, as its import is lazy', () => {
    const text = bundleText();
    const modules = [...text.matchAll(/^\/\/ (dist\/\S+\.js)$/gm)].map((m) => m[1]!);
    const lazy = new Set([...text.matchAll(/__esm\(\{\s*"(dist\/[^"]+)"\(\)/g)].map((m) => m[1]!));
    expect(modules.length).toBeGreaterThan(50);
    // The entry and its dispatch tables (which command is fast, and how each shared one runs), which
    // every fast call needs and imports statically; whatever a command needs loads lazily.
    // (esbuild may name the entry twice, around the flat modules it hoists.)
    expect([...new Set(modules.filter((m) => !lazy.has(m)))].sort()).toEqual(['dist/cli/fast-names.js', 'dist/cli/fast-shared.js', 'dist/cli/fast.js']);
  });

  it('has no import.meta left, and every rewritten one names a real dist file', () => {
    const text = bundleText();
    for (const t of [text, readFileSync(join(DIST, 'boot.cjs'), 'utf8')]) expect(t).not.toMatch(/import\.meta|import_meta\d*\s*=\s*\{\s*\}/);
    const files = [...new Set([...text.matchAll(/__tkomaDist(?:Url|Resolve)\("([^"]+)"/g)].map((m) => m[1]!))];
    expect(files).toEqual(expect.arrayContaining(['lib/serve/protocol.js', 'lib/store/root.js', 'lib/chunking/pool.js']));
    for (const f of files) expect(existsSync(join(DIST, f)), f).toBe(true);
  });
});

describe('boot settings', () => {
  it('puts the cache under TKOMA_REF_CODE_CACHE, else the user cache folder; off means none', () => {
    expect(codeCacheDir({ TKOMA_REF_CODE_CACHE: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(codeCacheDir({ TKOMA_REF_CODE_CACHE: 'OFF' })).toBeNull();
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(join('/x', 'tkoma-ref', 'code-cache'));
    expect(codeCacheDir({ TKOMA_REF_CODE_CACHE: '', HOME: '/h' })).toBe(join('/h', '.cache', 'tkoma-ref', 'code-cache'));
    expect(codeCacheFile('/c', 'ab'.repeat(10), 'mcp', 'v1-x')).toBe(join('/c', `fast-${'ab'.repeat(10)}-mcp-v1-x.v8`));
  });
});

describe('code cache, end to end', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  const cacheDir = join(tmp.path, 'cache');
  const args = ['search', 'calibrate the sprocket', '--topic', 'topic-gadgets', '--json', '--no-server'];
  const cacheFiles = () => (existsSync(cacheDir) ? readdirSync(cacheDir).sort() : []);
  const run = (env: Record<string, string> = {}) => cli(args, { root, env: { TKOMA_REF_CODE_CACHE: cacheDir, ...env } });
  let separate: string;
  let repoUrl: string;

  beforeAll(async () => {
    await freshRoot(root);
    const repo = makeRepo(join(tmp.path, 'up'), {
      'README.md': '# Gadgets\n\nGadgets calibrate sprockets.\n',
      'src/calibrate.py': 'def calibrate(sprocket):\n    """Calibrate a sprocket."""\n    return sprocket * 2\n',
    });
    repoUrl = repo.url;
    expect((await cli(['topic', 'create', '--yes', '--json', '--title', 'Gadgets', '--git', repo.url], { root })).code).toBe(0);
    const r = await cli(args, { root, env: { TKOMA_REF_NO_BUNDLE: '1' } });
    expect(r.code, r.stderr).toBe(0);
    separate = r.stdout;
    expect((r.json as { results: unknown[] }).results.length).toBeGreaterThan(0);
  });
  afterAll(() => tmp.cleanup());

  it('the first run writes one cache file for this bundle and Node; the next reads it unchanged', async () => {
    const first = await run();
    expect(first.stdout).toBe(separate);
    const digest = /^\/\/ tkoma-ref fast path ([0-9a-f]{20})/.exec(bundleText())![1]!;
    const file = codeCacheFile(cacheDir, digest, 'search');
    expect(cacheFiles()).toEqual([file.slice(cacheDir.length + 1)]);
    const written = readFileSync(file);
    const at = statSync(file).mtimeMs;
    expect(written.length).toBeGreaterThan(10_000);
    const second = await run();
    expect(second.stdout).toBe(separate);
    expect(statSync(file).mtimeMs).toBe(at);
    expect(readFileSync(file).equals(written)).toBe(true);
  });

  it("keeps a create's cache: the V8 flags a create sets (grammars, young generation) are V8's defaults again when it is written", async () => {
    const dir = join(tmp.path, 'cache-create');
    const create = async (title: string) => {
      const r = await cli(['topic', 'create', '--yes', '--json', '--title', title, '--git', repoUrl], { root, env: { TKOMA_REF_CODE_CACHE: dir } });
      expect(r.code, r.stderr).toBe(0);
      expect((r.json as { chunk_count: number }).chunk_count).toBeGreaterThan(1); // the .py file went through tree-sitter
    };
    await create('Gadgets two');
    const [name] = readdirSync(dir);
    expect(name).toMatch(/-topic-create-v/);
    const file = join(dir, name!);
    const written = readFileSync(file);
    const at = statSync(file).mtimeMs;
    await create('Gadgets three');
    expect(statSync(file).mtimeMs).toBe(at);
    expect(readFileSync(file).equals(written)).toBe(true);
  });

  it('a damaged cache is refused by V8 and rewritten; the answer does not change', async () => {
    const [name] = cacheFiles();
    const file = join(cacheDir, name!);
    const garbage = Buffer.alloc(4096, 7);
    writeFileSync(file, garbage);
    const r = await run();
    expect([r.code, r.stdout]).toEqual([0, separate]);
    const rewritten = readFileSync(file);
    expect(rewritten.equals(garbage)).toBe(false);
    expect(rewritten.length).toBeGreaterThan(10_000);
  });

  it("removes other builds' caches once a day old, and nothing that is not its own", async () => {
    const [own] = cacheFiles();
    const old = join(cacheDir, `fast-${'0'.repeat(20)}-search-v0.0.0-x64.v8`);
    const fresh = join(cacheDir, `fast-${'1'.repeat(20)}-search-v0.0.0-x64.v8`);
    const foreign = join(cacheDir, 'notes.txt');
    for (const f of [old, fresh, foreign]) writeFileSync(f, 'x');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    for (const f of [old, foreign]) utimesSync(f, twoDaysAgo, twoDaysAgo);
    writeFileSync(join(cacheDir, own!), 'stale'); // refused, so this run writes, then tidies
    expect((await run()).stdout).toBe(separate);
    expect(cacheFiles()).toEqual([own, fresh.slice(cacheDir.length + 1), 'notes.txt'].sort());
  });

  it('writes none after a failed search or one handed to oclif, and keeps mcp apart', async () => {
    const dir = join(tmp.path, 'cache-kinds');
    const env = { TKOMA_REF_CODE_CACHE: dir };
    const missing = await cli(['search', 'x', '--topic', 'topic-nope', '--json', '--no-server'], { root, env });
    expect(missing.code).toBe(3);
    expect((await cli(['search', '--help'], { root, env })).code).toBe(0);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
    const mcp = await cli(['mcp', '--no-serve'], { root, env, input: JSON.stringify(init) + '\n' });
    expect(mcp.code, mcp.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^fast-[0-9a-f]{20}-mcp-v\d/)]);
    expect((await cli(args, { root, env })).stdout).toBe(separate);
    expect(readdirSync(dir).sort()).toEqual([expect.stringMatching(/-mcp-/), expect.stringMatching(/-search-/)]);
  });

  it('off, unwritable or on a Node that cannot require ES modules: same answer, no cache', async () => {
    const xdg = join(tmp.path, 'xdg');
    const off = await cli(args, { root, env: { TKOMA_REF_CODE_CACHE: 'off', XDG_CACHE_HOME: xdg } });
    expect(off.stdout).toBe(separate);
    expect(existsSync(join(xdg, 'tkoma-ref'))).toBe(false);

    const blocked = join(tmp.path, 'blocked');
    writeFileSync(blocked, 'a file where the cache folder would be');
    const unwritable = await cli(args, { root, env: { TKOMA_REF_CODE_CACHE: join(blocked, 'cache') } });
    expect([unwritable.code, unwritable.stdout, unwritable.stderr]).toEqual([0, separate, '']);

    const elsewhere = join(tmp.path, 'old-node-cache');
    mkdirSync(elsewhere);
    const oldNode = await cli(args, { root, env: { TKOMA_REF_CODE_CACHE: elsewhere, NODE_OPTIONS: '--no-experimental-require-module' } });
    expect(oldNode.stdout).toBe(separate);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('by default keeps the cache in $XDG_CACHE_HOME/tkoma-ref/code-cache', async () => {
    const xdg = join(tmp.path, 'xdg-default');
    const r = await cli(args, { root, env: { XDG_CACHE_HOME: xdg, TKOMA_REF_CODE_CACHE: '' } });
    expect(r.stdout).toBe(separate);
    expect(readdirSync(join(xdg, 'tkoma-ref', 'code-cache'))).toHaveLength(1);
  });

  /** A copy of the package, so the shared dist/ keeps its files and times for the tests beside. */
  function packageCopy(name: string): string {
    const pkg = join(tmp.path, name);
    for (const part of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) cpSync(join(PROJECT, part), join(pkg, part), { recursive: true });
    symlinkSync(join(PROJECT, 'node_modules'), join(pkg, 'node_modules'));
    return pkg;
  }

  /** Runs `args` with bin/ of `pkg` (bin/run.cjs unless named), tracing module loads. */
  function tracedRun(pkg: string, bin = 'run.cjs'): { stdout: string; loaded: string } {
    const trace = join(tmp.path, `trace-${Date.now()}-${Math.random()}.txt`);
    const r = spawnSync(process.execPath, ['--import', join(PROJECT, 'test/helpers/trace-imports.mjs'), join(pkg, 'bin', bin), ...args, '--root', root], {
      env: { ...process.env, TKOMA_TRACE_FILE: trace, TKOMA_REF_EMBEDDER: 'none', TKOMA_REF_CODE_CACHE: 'off' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return { stdout: r.stdout, loaded: readFileSync(trace, 'utf8') };
  }

  it('passes over a bundle older than the modules it was made from (tsc run again alone)', () => {
    const pkg = packageCopy('pkg-stale');
    const loadsSeparately = (bundleAt: Date): boolean => {
      utimesSync(join(pkg, 'dist', 'fast.cjs'), bundleAt, bundleAt);
      const r = tracedRun(pkg);
      expect(r.stdout).toBe(separate);
      return r.loaded.includes(join(pkg, 'dist', 'cli', 'searching.js'));
    };
    const fastJs = statSync(join(pkg, 'dist', 'cli', 'fast.js')).mtime;
    expect(loadsSeparately(new Date(fastJs.getTime() - 60_000))).toBe(true);
    expect(loadsSeparately(new Date(fastJs.getTime() + 60_000))).toBe(false);
  });

  it('without dist/boot.cjs oclif answers; bin/run.js still runs the binary', () => {
    const pkg = packageCopy('pkg-noboot');
    const viaOldName = tracedRun(pkg, 'run.js');
    expect(viaOldName.stdout).toBe(separate);
    expect(viaOldName.loaded).not.toContain('@oclif/core');
    rmSync(join(pkg, 'dist', 'boot.cjs'));
    const r = tracedRun(pkg);
    expect(r.stdout).toBe(separate);
    expect(r.loaded).toContain('@oclif/core');
  });
});
