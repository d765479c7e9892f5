/**
 * The warm path through the built binary: `serve` and `watch` answer `search` / `topic search`
 * with byte-identical output, writes and hand edits are seen on the next request, a server
 * killed with SIGKILL is ignored, and `--no-server` / TKOMA_REF_NO_SERVER bypass it.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { markingFind } from '../helpers/fake-find.js';
import { BIN, cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { ping } from '../helpers/serve.js';
import { freshRoot } from '../helpers/roots.js';

interface Running {
  child: ChildProcessWithoutNullStreams;
  socket: string;
  events: { type?: string; [k: string]: unknown }[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `serve` or `watch` with --json and waits until it listens. */
async function start(root: string, command: 'serve' | 'watch'): Promise<Running> {
  const child = spawn(process.execPath, [BIN, command, '--json', '--root', root], {
    env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' },
  });
  const events: Running['events'] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const socket = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const e = JSON.parse(l) as Running['events'][number];
      events.push(e);
      if (e.type === 'serving') resolve(e.socket as string);
    });
    void exited.then((code) => reject(new Error(`${command} exited ${code}: ${stderr}`)));
  });
  return {
    child,
    socket,
    events,
    stop: (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

const tmp = tmpDir();
const root = join(tmp.path, 'kb');
const topicDir = join(root, 'references', 'topic-gears');
let server: Running | undefined;

beforeAll(async () => {
  await freshRoot(root);
  const gears = makeRepo(join(tmp.path, 'gears'), {
    'README.md': '# Gears\n\nGears mesh with other gears.\n\n## Ratios\n\nThe gear ratio is teeth over teeth.\n',
    'docs/lubrication.md': '# Lubrication\n\nUse grease on the teeth every hundred hours.\n',
    'docs/install.md': '# Installing\n\nPress the gear onto the shaft with a hydraulic press.\n',
    'src/gear.ts': 'export function ratio(a: number, b: number): number {\n  return a / b;\n}\n',
  });
  const bread = makeRepo(join(tmp.path, 'bread'), { 'starter.md': '# Starter\n\nFeed the sourdough starter with flour and water.\n' });
  for (const [title, repo] of [['Gears', gears], ['Bread', bread]] as const) {
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', title, '--git', repo.url], { root });
    expect(r.code, r.stdout).toBe(0);
  }
  server = await start(root, 'serve');
});

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

/** Runs the command through the server and with --no-server; both outputs must be the same bytes. */
async function compare(args: string[]): Promise<{ stdout: string; code: number }> {
  const served = await cli(args, { root });
  const local = await cli([...args, '--no-server'], { root });
  expect(served.stdout, args.join(' ')).toBe(local.stdout);
  expect(served.code, args.join(' ')).toBe(local.code);
  return served;
}

async function answered(): Promise<number> {
  const a = (await ping(server!.socket)).answered;
  return (a.search ?? 0) + (a.topic_search ?? 0) + (a.error ?? 0);
}

describe('serve', () => {
  it('answers search and topic search with byte-identical output, for many flags', async () => {
    const before = await answered();
    const runs = [
      ['search', 'gear ratio', '--topic', 'topic-gears', '--json'],
      ['search', 'grease', '--all', '--limit', '2', '--json'],
      ['search', 'teeth', '--topic', 'gears', '--explain', '--max-chars', '60', '--json'],
      ['search', 'feed the starter', '--json'],
      ['search', 'ratio', '--topic', 'topic-gears', '--mode', 'lexical', '--json'],
      ['search', '--input', '{"question":"hydraulic press","topic":"topic-gears","limit":1}', '--json'],
      ['search', 'gear ratio', '--topic', 'topic-gears'], // for people, too
      ['topic', 'search', 'gears', '--json'],
      ['topic', 'search', 'bread', '--limit', '1', '--include-obsolete', '--json'],
    ];
    for (const args of runs) {
      const r = await compare(args);
      expect(r.code, r.stdout).toBe(0);
    }
    expect(await answered()).toBe(before + runs.length);
  });

  it('answers errors with the same JSON and exit code', async () => {
    const before = await answered();
    const notFound = await compare(['search', 'x', '--topic', 'topic-nope', '--json']);
    expect(notFound.code).toBe(3);
    const badMode = await compare(['search', '--input', '{"question":"x","mode":"fuzzy"}', '--json']);
    expect(JSON.parse(badMode.stdout).error.code).toBe('INVALID_ENUM');
    expect(await answered()).toBe(before + 2);
  });

  it('is bypassed by --no-server, TKOMA_REF_NO_SERVER=1 and a request for another embedder', async () => {
    const before = await answered();
    await cli(['search', 'grease', '--topic', 'topic-gears', '--json', '--no-server'], { root });
    await cli(['search', 'grease', '--topic', 'topic-gears', '--json'], { root, env: { TKOMA_REF_NO_SERVER: '1' } });
    const other = { TKOMA_REF_EMBEDDER: 'ollama', TKOMA_REF_EMBED_URL: 'http://127.0.0.1:9' };
    const r = await cli(['search', 'grease', '--topic', 'topic-gears', '--json'], { root, env: other });
    expect(r.code).toBe(0);
    expect(r.json.vector_search.available).toBe(false); // worked out in-process: the model is unreachable
    expect(await answered()).toBe(before);
  });

  it('starts no find for a search the server answers', async () => {
    const find = markingFind(join(tmp.path, 'fake-find'));
    const before = await answered();
    const r = await cli(['search', 'grease', '--topic', 'topic-gears', '--json'], { root, env: { PATH: find.path } });
    expect(r.code).toBe(0);
    expect(await answered()).toBe(before + 1);
    expect(find.asked()).toBe(false);
    await cli(['search', 'grease', '--topic', 'topic-gears', '--json', '--no-server'], { root, env: { PATH: find.path } });
    expect(find.asked()).toBe(true); // the fake is the find a search would start
  });

  it('sees a hand edit on the next request', async () => {
    writeFileSync(join(topicDir, 'docs', 'welding.md'), '# Welding\n\nTack weld the flange before the bead.\n');
    const before = await answered();
    const r = await cli(['search', 'flange bead', '--topic', 'topic-gears', '--json'], { root });
    expect(r.json.results[0].path).toBe('docs/welding.md');
    expect(await answered()).toBe(before + 1);
  });

  it('sees `file status … obsolete` on the next request', async () => {
    const q = ['search', 'grease teeth hundred hours', '--topic', 'topic-gears', '--json'];
    expect((await cli(q, { root })).json.results.map((h: { path: string }) => h.path)).toContain('docs/lubrication.md');
    const mark = await cli(['file', 'status', '--topic', 'topic-gears', '--path', 'docs/lubrication.md', '--status', 'obsolete', '--reason', 'old', '--json'], { root });
    expect(mark.code, mark.stdout).toBe(0);
    const before = await answered();
    const after = await compare(q);
    expect(JSON.parse(after.stdout).results.map((h: { path: string }) => h.path)).not.toContain('docs/lubrication.md');
    expect(await answered()).toBe(before + 1);
  });

  it('a server killed with SIGKILL is ignored; a new one takes over', async () => {
    const killed = server!;
    server = undefined;
    await killed.stop('SIGKILL');
    expect(existsSync(join(root, '.tkoma', 'serve.json'))).toBe(true); // left behind
    const r = await compare(['search', 'gear ratio', '--topic', 'topic-gears', '--json']);
    expect(r.code).toBe(0);
    expect(existsSync(join(root, '.tkoma', 'serve.json'))).toBe(false); // cleaned by the client
    server = await start(root, 'serve');
    await compare(['search', 'gear ratio', '--topic', 'topic-gears', '--json']);
    expect(await answered()).toBe(1);
  });

  it('stops cleanly on SIGTERM, removing its socket and serve.json', async () => {
    const s = server!;
    server = undefined;
    expect(await s.stop()).toBe(0);
    expect(existsSync(s.socket)).toBe(false);
    expect(existsSync(join(root, '.tkoma', 'serve.json'))).toBe(false);
  });
});

describe('watch', () => {
  it('serves too, and refuses nothing a server would answer', async () => {
    const w = await start(root, 'watch');
    try {
      // 'ready' comes once every folder is watched, which may be after the socket serves.
      while (!w.events.some((e) => e.type === 'ready')) await new Promise((r) => setTimeout(r, 20));
      await compare(['search', 'hydraulic press', '--topic', 'topic-gears', '--json']);
      await compare(['topic', 'search', 'sourdough', '--json']);
      const a = (await ping(w.socket)).answered;
      expect((a.search ?? 0) + (a.topic_search ?? 0)).toBe(2);
    } finally {
      expect(await w.stop()).toBe(0);
    }
    expect(existsSync(w.socket)).toBe(false);
  });
});
