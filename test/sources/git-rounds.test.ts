/**
 * Fetches big enough to take several download rounds from a server that honours the blob filter:
 * the next round downloads while this one is written, yet a cap still stops the download within
 * a round of what was kept, and one cat-file process reads blobs of packs that arrive later.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fetchGitSource } from '../../src/lib/sources/git.js';
import { uploadPackArgs } from '../../src/lib/sources/git-run.js';
import { git, tempDir } from '../helpers/git-repos.js';

const FILES = 1700; // rounds of 512, 1024, then the rest
const BYTES = 100;
const name = (i: number) => `f/${String(i).padStart(4, '0')}.md`;
const text = (i: number) => `# file ${i}\n`.padEnd(BYTES - 1, 'x') + '\n';

let server: string;
let url: string;
let dest: string;
let trace: string;

beforeAll(() => {
  server = tempDir();
  git(server, 'init', '-q');
  mkdirSync(join(server, 'f'));
  for (let i = 0; i < FILES; i++) writeFileSync(join(server, name(i)), text(i));
  git(server, 'add', '-A');
  git(server, 'commit', '-q', '-m', 'many files');
  git(server, 'config', 'uploadpack.allowFilter', 'true');
  url = pathToFileURL(server).href;
});

afterAll(() => rmSync(server, { recursive: true, force: true }));

afterEach(() => {
  delete process.env.GIT_TRACE2_EVENT;
  rmSync(dest, { recursive: true, force: true });
  rmSync(trace, { force: true });
});

/** Fetches with git's trace on; returns the result and the object count of each pack received. */
async function tracedFetch(opts: Parameters<typeof fetchGitSource>[2]) {
  dest = tempDir();
  trace = join(tempDir(), 'trace.json');
  process.env.GIT_TRACE2_EVENT = trace;
  const res = await fetchGitSource({ url }, dest, opts);
  const packs: number[] = [];
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    if (!line.includes('"event":"start"') || !line.includes('index-pack')) continue;
    const m = /--pack_header=\d+,(\d+)/.exec(line);
    if (m) packs.push(Number(m[1]));
  }
  // The first pack is the commit and its trees; the others are the rounds' blobs.
  return { res, blobPacks: packs.slice(1) };
}

describe('download rounds', () => {
  it('writes every file of a fetch that takes three rounds, byte for byte', async () => {
    const { res, blobPacks } = await tracedFetch({});
    expect(blobPacks).toEqual([512, 1024, FILES - 1536]);
    expect(res.files.length).toBe(FILES);
    expect(res.skipped).toEqual([]);
    expect(readdirSync(join(dest, 'f')).length).toBe(FILES);
    for (const i of [0, 511, 512, 1535, 1536, FILES - 1]) expect(readFileSync(join(dest, name(i)), 'utf8')).toBe(text(i));
  });

  it('a byte cap reached in the first round stops the download there: the next round is not fetched ahead', async () => {
    const { res, blobPacks } = await tracedFetch({ maxTotalBytes: 300 * BYTES });
    expect(blobPacks).toEqual([512]);
    expect(res.files.map((f) => f.path)).toEqual(Array.from({ length: 300 }, (_, i) => name(i)));
    expect(res.skipped.length).toBe(FILES - 300);
    expect(new Set(res.skipped.map((s) => s.reason))).toEqual(new Set(['max_topic_bytes']));
  });

  it('a file cap downloads no more blobs than it can take', async () => {
    const { res, blobPacks } = await tracedFetch({ maxFiles: 700 });
    expect(blobPacks).toEqual([512, 188]);
    expect(res.files.length).toBe(700);
    expect(res.skipped.every((s) => s.reason === 'max_files')).toBe(true);
    expect(res.skipped.length).toBe(FILES - 700);
  });

  it('a byte cap reached in a later round stops within that round', async () => {
    const { res, blobPacks } = await tracedFetch({ maxTotalBytes: 600 * BYTES });
    expect(blobPacks).toEqual([512, 1024]);
    expect(res.files.length).toBe(600);
  });
});

describe('the server side of a fetch', () => {
  it('is asked for no delta search only when it runs on this machine (file://)', () => {
    expect(uploadPackArgs(true)).toEqual(['--upload-pack=git -c pack.window=0 upload-pack']);
    expect(uploadPackArgs(false)).toEqual([]);
  });
});
