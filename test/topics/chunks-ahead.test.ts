/**
 * A create's files cut while they are fetched (src/lib/chunking/ahead.ts), through the same steps
 * a create takes (fetchSources into the topic's folder, then the sync) on a real repository over
 * file://: the sync takes a file's chunks only when the bytes it reads are the ones that were cut,
 * and whatever happens in between (a file changed or gone, the cap reached, the thread dead, no
 * thread at all) the index is the one the sync alone makes of the files on disk, byte for byte.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ChunksAhead } from '../../src/lib/chunking/ahead.js';
import { forgetTopicIndex, syncIndex } from '../../src/lib/index/service.js';
import { silentProgress } from '../../src/lib/progress.js';
import { writeManifest } from '../../src/lib/store/topic-files.js';
import { fetchSources } from '../../src/lib/topics/fetch.js';
import { validateCreateRequest } from '../../src/lib/topics/request.js';
import { FIXTURES } from '../chunking/fixtures.js';
import { makeRepo, tmpDir } from '../helpers/fixtures.js';
import { indexBytes } from '../helpers/index-bytes.js';
import { makeTmpRoot, writeTopicMd } from '../helpers/index-topics.js';

const ID = 'topic-corpus';

/** Code of every fixture language in three folders, and some prose. */
function corpus(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const dir of ['a', 'b', 'c']) {
    for (const fx of FIXTURES) files[`${dir}/${fx.path}`] = fx.code;
    files[`${dir}/README.md`] = `# ${dir}\n\nSome prose about the ${dir} package.\n\n## Usage\n\nCall it.\n`;
  }
  return files;
}

const tmp = tmpDir('tkoma-ahead-');
let repo: ReturnType<typeof makeRepo>;
let bigRepo: ReturnType<typeof makeRepo>;
const cleanups: (() => void)[] = [];

beforeAll(() => {
  repo = makeRepo(join(tmp.path, 'upstream'), corpus());
  // A data file whose chunks and terms outgrow a 16 MiB thread heap (as in chunk-terms.test.ts).
  const big = JSON.stringify(Array.from({ length: 150_000 }, (_, i) => ({ key: `value_${i % 97}`, n: i })), null, 1);
  bigRepo = makeRepo(join(tmp.path, 'upstream-big'), { ...corpus(), 'b/big.json': big });
});
afterAll(() => tmp.cleanup());
afterEach(() => {
  delete process.env.TKOMA_REF_CHUNK_THREADS;
  for (const c of cleanups.splice(0)) c();
});

/** A root whose topic folder holds the fetch of `url`, as a create leaves it before its sync. */
async function fetched(url: string, ahead?: ChunksAhead): Promise<{ root: string; dir: string; files: number }> {
  const { root, cleanup } = makeTmpRoot();
  cleanups.push(() => {
    forgetTopicIndex(root);
    cleanup();
  });
  const dir = join(root, 'references', ID);
  const { sources } = validateCreateRequest({ title: 'Corpus', sources: [{ type: 'git', url }] });
  const [res] = await fetchSources(sources, dir, silentProgress, { maxFileBytes: 8 * 1024 * 1024 }, ahead ? { ahead } : {});
  expect(res!.ok).toBe(true);
  writeTopicMd(root, { id: ID, title: 'Corpus', body: '# Corpus', files: {} });
  await writeManifest(dir, res!.files);
  return { root, dir, files: res!.files.length };
}

/** The index of `root`'s topic, synced with `ahead` (closed after, as the create does). */
async function synced(root: string, ahead?: ChunksAhead): Promise<Record<string, string>> {
  try {
    const report = await syncIndex(root, { topicIds: [ID], ...(ahead ? { ahead } : {}) });
    expect(report.topics[ID]!.chunks).toBeGreaterThan(FIXTURES.length * 3);
  } finally {
    await ahead?.close();
  }
  return indexBytes(root, ID);
}

/** The chunk texts of the topic's segment. */
const segmentText = (index: Record<string, string>): string => Buffer.from(index.txt!, 'base64').toString('utf8');

describe('a create cutting its files while they are fetched', () => {
  it('sends every file to the thread as it is fetched, and the sync takes them all, into the index the sync alone makes', async () => {
    process.env.TKOMA_REF_CHUNK_THREADS = '2';
    const alone = await fetched(repo.url);
    const ahead = new ChunksAhead(ID);
    const cut = await fetched(repo.url, ahead);
    expect(ahead.sent).toBe(cut.files);
    const index = await synced(cut.root, ahead);
    expect(ahead.taken).toBe(cut.files);
    expect(index).toEqual(await synced(alone.root));
  });

  it('cuts again a file whose bytes changed after the fetch, and drops one that went', async () => {
    process.env.TKOMA_REF_CHUNK_THREADS = '2';
    const ahead = new ChunksAhead(ID);
    const cut = await fetched(repo.url, ahead);
    const rust = FIXTURES.find((f) => f.path.endsWith('.rs'))!.path;
    const changed = `// zanzibarquux: rewritten after the fetch\n${readFileSync(join(cut.dir, 'a', rust), 'utf8')}`;
    const gone = 'b/README.md';
    writeFileSync(join(cut.dir, 'a', rust), changed);
    rmSync(join(cut.dir, gone));
    const alone = await fetched(repo.url);
    writeFileSync(join(alone.dir, 'a', rust), changed);
    rmSync(join(alone.dir, gone));

    const index = await synced(cut.root, ahead);
    expect(ahead.sent).toBe(cut.files);
    expect(ahead.taken).toBe(cut.files - 2);
    expect(segmentText(index)).toContain('zanzibarquux');
    expect(index).toEqual(await synced(alone.root));
  });

  it('holds no more text than its cap: the files past it are cut by the sync, into the same index', async () => {
    process.env.TKOMA_REF_CHUNK_THREADS = '2';
    const total = Object.values(corpus()).reduce((n, t) => n + Buffer.byteLength(t), 0);
    const ahead = new ChunksAhead(ID, { capBytes: Math.floor(total / 3) });
    const cut = await fetched(repo.url, ahead);
    expect(ahead.sent).toBeGreaterThan(0);
    expect(ahead.sent).toBeLessThan(cut.files);
    const index = await synced(cut.root, ahead);
    expect(ahead.taken).toBe(ahead.sent);
    expect(index).toEqual(await synced((await fetched(repo.url)).root));
  });

  it('makes the same index when a thread dies mid-fetch: the files it held are cut in this thread', async () => {
    process.env.TKOMA_REF_CHUNK_THREADS = '3';
    const ahead = new ChunksAhead(ID, { heapMb: 16 });
    const cut = await fetched(bigRepo.url, ahead);
    const pool = ahead.threads()!;
    const index = await synced(cut.root, ahead);
    // Some files came back from the thread, and some (the big one at least) were cut here.
    expect(pool.answered).toBeGreaterThan(0);
    expect(pool.answered).toBeLessThan(cut.files);
    expect(ahead.taken).toBe(ahead.sent);
    expect(index).toEqual(await synced((await fetched(bigRepo.url)).root));
  });

  it('cuts nothing ahead when the sync would start no thread', async () => {
    process.env.TKOMA_REF_CHUNK_THREADS = '1';
    const ahead = new ChunksAhead(ID);
    const cut = await fetched(repo.url, ahead);
    expect(ahead.threads()).toBeNull();
    const index = await synced(cut.root, ahead);
    expect(ahead.sent).toBe(0);
    expect(index).toEqual(await synced((await fetched(repo.url)).root));
  });
});
