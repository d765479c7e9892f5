/**
 * `search` runs without oclif when its arguments are plain (src/cli/fast.ts). The answers must be
 * byte-identical to the oclif path (TKOMA_REF_NO_FAST_PATH=1), and anything unusual must reach
 * oclif so usage errors and help stay as they were.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseBySpec } from '../../src/cli/fast.js';
import { MCP_SPEC } from '../../src/cli/spec.js';
import { SEARCH_SPEC } from '../../src/cli/searching.js';
import { markingFind } from '../helpers/fake-find.js';
import { BIN, cli, makeRepo, PROJECT, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

describe('parseBySpec', () => {
  it('parses plain flags, defaults, --no-x and the positional question', () => {
    expect(parseBySpec(SEARCH_SPEC, ['how to parse', '--limit', '3', '--mode=lexical', '--no-server', '--json'])).toEqual({
      args: ['how to parse'],
      flags: expect.objectContaining({ limit: 3, mode: 'lexical', server: false, json: true, all: false, explain: false, topic: undefined }),
    });
    expect(parseBySpec(SEARCH_SPEC, ['q'])!.flags).toMatchObject({ limit: 10, server: true, json: false });
  });

  it('leaves anything unusual to oclif', () => {
    for (const argv of [
      ['q', '--help'],
      ['q', '--limit', '0'],
      ['q', '--limit', '201'],
      ['q', '--limit', 'ten'],
      ['q', '--mode', 'fuzzy'],
      ['q', '--bogus'],
      ['q', 'extra'],
      ['q', '--topic', 'a', '--topic', 'b'],
      ['q', '--server', '--no-server'],
      ['q', '--json=false'],
    ]) {
      expect(parseBySpec(SEARCH_SPEC, argv), argv.join(' ')).toBeNull();
    }
  });
});

describe('search fast path, end to end', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');

  beforeAll(async () => {
    await freshRoot(root);
    const repo = makeRepo(join(tmp.path, 'up'), {
      'README.md': '# Gadgets\n\nGadgets calibrate sprockets.\n\n## Install\n\nRun the installer twice.\n',
      'src/calibrate.py': 'def calibrate(sprocket):\n    """Calibrate a sprocket."""\n    return sprocket * 2\n',
    });
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Gadgets', '--git', repo.url], { root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  const cases: string[][] = [
    ['search', 'calibrate a sprocket', '--json'],
    ['search', 'calibrate a sprocket', '--json', '--limit', '1', '--mode', 'lexical', '--max-chars', '60', '--explain'],
    ['search', 'installer', '--topic', 'topic-gadgets', '--json', '--no-server'],
    ['search', 'installer', '--all'],
    ['search', '--json', '--input', '{"question":"sprocket","limit":1}'],
    // Errors: the same code, message and exit status either way.
    ['search', '--json'],
    ['search', 'x', '--topic', 'topic-gadgets', '--all', '--json'],
    ['search', 'x', '--topic', 'topic-nope', '--json'],
    ['search', 'x', '--limit', '0', '--json'],
    ['search', 'x', '--mode', 'fuzzy', '--json'],
    ['search', 'x', '--input', '{not json', '--json'],
  ];
  for (const args of cases) {
    it(args.slice(1).join(' '), async () => {
      const fast = await cli(args, { root });
      const slow = await cli(args, { root, env: { TKOMA_REF_NO_FAST_PATH: '1' } });
      expect(fast.code).toBe(slow.code);
      expect(fast.stdout).toBe(slow.stdout);
      const noPid = (t: string) => t.replace(/\(node:\d+\)/g, '(node)');
      expect(noPid(fast.stderr)).toBe(noPid(slow.stderr));
      if (args.includes('--json')) expect(fast.json).toBeDefined();
    });
  }

  it('a cold search of a named topic asks find for its listing, and answers the same when find talks nonsense', async () => {
    const find = markingFind(join(tmp.path, 'fake-find'));
    const args = ['search', 'installer', '--topic', 'topic-gadgets', '--json', '--no-server'];
    const withFake = await cli(args, { root, env: { PATH: find.path } });
    expect(find.asked()).toBe(true);
    const normal = await cli(args, { root });
    expect(withFake.code).toBe(0);
    expect(withFake.stdout).toBe(normal.stdout);
  });

  it('a missing root is reported the same way on the fast path', async () => {
    const r = await cli(['search', 'x', '--json'], { root: join(tmp.path, 'nowhere') });
    const slow = await cli(['search', 'x', '--json'], { root: join(tmp.path, 'nowhere'), env: { TKOMA_REF_NO_FAST_PATH: '1' } });
    expect((r.json as { error: { code: string } }).error.code).toBe('ROOT_NOT_INITIALISED');
    expect([r.code, r.stdout]).toEqual([slow.code, slow.stdout]);
  });

  // The fast path has `find` list the topic's files while it loads (index/listing-prefetch.ts):
  // the listing must still show every hand edit made before the command.
  it('the next cold search sees a same-size edit, a new file and a removed file', async () => {
    const dir = join(root, 'references', 'topic-gadgets');
    const readme = join(dir, 'README.md');
    writeFileSync(readme, readFileSync(readme, 'utf8').replace('twice', 'quick'));
    utimesSync(readme, new Date(3_000_000), new Date(3_000_000));
    writeFileSync(join(dir, 'src', 'polish.py'), 'def polish(sprocket):\n    """Buff a sprocket to a mirror shine."""\n');
    rmSync(join(dir, 'src', 'calibrate.py'));
    const search = async (q: string) => (await cli(['search', q, '--topic', 'topic-gadgets', '--json', '--no-server'], { root })).json as { results: { path: string; snippet: string }[] };
    expect((await search('installer')).results[0]!.snippet).toContain('quick');
    expect((await search('mirror shine')).results[0]!.path).toBe('src/polish.py');
    expect((await search('calibrate sprocket')).results.map((h) => h.path)).not.toContain('src/calibrate.py');
  });

  // A search that names no topic has one process list every topic folder (prefetchListings).
  it('a cold search naming no topic asks find, sees edits in any topic, and answers the same when find talks nonsense', async () => {
    const repo = makeRepo(join(tmp.path, 'up-widgets'), {
      'README.md': '# Widgets\n\nWidgets spin flanges.\n\n## Tuning\n\nTighten the flange slowly.\n',
      'docs/gears.md': '# Gears\n\nGears mesh with cogwheels.\n',
    });
    const made = await cli(['topic', 'create', '--yes', '--json', '--title', 'Widgets', '--git', repo.url], { root });
    expect(made.code, made.stdout + made.stderr).toBe(0);
    const args = (q: string) => ['search', q, '--json', '--no-server'];
    const find = markingFind(join(tmp.path, 'fake-find-all'));
    const withFake = await cli(args('tighten the flange'), { root, env: { PATH: find.path } });
    expect(find.asked()).toBe(true);
    const normal = await cli(args('tighten the flange'), { root });
    expect(withFake.code).toBe(0);
    expect(withFake.stdout).toBe(normal.stdout);

    const dir = join(root, 'references', 'topic-widgets');
    const readme = join(dir, 'README.md');
    writeFileSync(readme, readFileSync(readme, 'utf8').replace('slowly', 'gently'));
    utimesSync(readme, new Date(3_000_000), new Date(3_000_000));
    writeFileSync(join(dir, 'docs', 'springs.md'), '# Springs\n\nWidgets coil springs around flanges.\n');
    rmSync(join(dir, 'docs', 'gears.md'));
    const search = async (q: string) => (await cli(args(q), { root })).json as { results: { path: string; snippet: string }[] };
    const tuned = await search('tighten the flange');
    expect(tuned.results[0]!.snippet).toContain('gently');
    expect((await search('coil springs around flanges')).results[0]!.path).toBe('docs/springs.md');
    expect((await search('gears mesh with cogwheels')).results.map((h) => h.path)).not.toContain('docs/gears.md');
  });
});

describe('mcp fast path', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  beforeAll(async () => {
    await freshRoot(root);
  });
  afterAll(() => tmp.cleanup());

  it('parses the mcp flags, and leaves help and bad values to oclif', () => {
    expect(parseBySpec(MCP_SPEC, ['--no-serve', '--ghost', 'g', '--reconcile-seconds', '5'])!.flags).toMatchObject({
      serve: false,
      ghost: 'g',
      'reconcile-seconds': 5,
      http: undefined,
    });
    expect(parseBySpec(MCP_SPEC, [])!.flags).toMatchObject({ serve: true });
    for (const argv of [['--help'], ['--http', '0'], ['--http', '70000'], ['--reconcile-seconds', '0'], ['stray'], ['--bogus']]) {
      expect(parseBySpec(MCP_SPEC, argv), argv.join(' ')).toBeNull();
    }
  });

  it('serves stdio without loading oclif, and stops when stdin closes', () => {
    const trace = join(tmp.path, 'trace-mcp.txt');
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
    const r = spawnSync(process.execPath, ['--import', join(PROJECT, 'test/helpers/trace-imports.mjs'), BIN, 'mcp', '--root', root], {
      input: JSON.stringify(init) + '\n',
      env: { ...process.env, TKOMA_TRACE_FILE: trace, TKOMA_REF_EMBEDDER: 'none' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const { serverInfo } = JSON.parse(r.stdout.split('\n')[0]!).result;
    expect(serverInfo.name).toBe('tkoma-ref');
    // Read from package.json through the bundle's rewritten import.meta (scripts/bundle-fast.mjs).
    expect(serverInfo.version).toBe(JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')).version);
    const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((m) => m.includes('@modelcontextprotocol'))).toBe(true); // the trace works
    expect(loaded.filter((m) => m.includes('@oclif/core'))).toEqual([]);
  });

  for (const args of [['mcp', '--json'], ['mcp', '--http', '0', '--json']]) {
    it(`${args.join(' ')} with a missing root or a bad value fails as on the oclif path`, async () => {
      const nowhere = join(tmp.path, 'nowhere');
      const fast = await cli(args, { root: nowhere });
      const slow = await cli(args, { root: nowhere, env: { TKOMA_REF_NO_FAST_PATH: '1' } });
      expect(fast.code).not.toBe(0);
      expect([fast.code, fast.stdout]).toEqual([slow.code, slow.stdout]);
    });
  }
});
