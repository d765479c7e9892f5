/**
 * Knowledge roots for the benchmarks, made through the product's own functions: `initRoot`,
 * then `createTopic` with `yes: true` (the operator's explicit approval), exactly what
 * `tkoma-ref init` and `tkoma-ref topic create --yes` do.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { embeddingCacheDir, loadHead } from '../../src/lib/index/service.js';

import type { Progress } from '../../src/lib/progress.js';
import { initRoot } from '../../src/lib/store/root.js';
import { createTopic, type CreateResult } from '../../src/lib/topics/create.js';
import { validateCreateRequest } from '../../src/lib/topics/request.js';
import { human } from './stats.js';

/**
 * What an operator writes in tkoma-ref.toml to take the bench's local repository as a source:
 * its folder under `[sources] local_roots` (the policy refuses file:// sources elsewhere), committed.
 */
export function allowLocalRepository(root: string, repoUrl: string): void {
  allowLocalFolder(root, dirname(fileURLToPath(repoUrl)));
}

/** Every repository under `folder` may be a source of this root (`[sources] local_roots`), committed. */
export function allowLocalFolder(root: string, dir: string): void {
  const folder = realpathSync(dir);
  appendFileSync(join(root, 'tkoma-ref.toml'), `\n[sources]\nlocal_roots = [${JSON.stringify(folder)}]\n`);
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@localhost', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@localhost' };
  execFileSync('git', ['commit', '-q', '-m', 'allow the bench repository', '--', 'tkoma-ref.toml'], { cwd: root, env, stdio: 'ignore' });
}

/** Progress on stderr: each step with its time, updates at most every few seconds. */
export function stderrProgress(label: string, quiet = false): Progress {
  return {
    async task(title, fn) {
      const t0 = Date.now();
      let last = 0;
      if (!quiet) process.stderr.write(`[${label}] ${title}…\n`);
      const value = await fn((message) => {
        if (quiet || Date.now() - last < 5000) return;
        last = Date.now();
        process.stderr.write(`[${label}]   ${message} (${human(Date.now() - t0)})\n`);
      });
      if (!quiet) process.stderr.write(`[${label}] ${title}: done in ${human(Date.now() - t0)}\n`);
      return value;
    },
    warn(message) {
      if (!quiet) process.stderr.write(`[${label}] warning: ${message}\n`);
    },
  };
}

/** Chunks in a topic's derived index (0 before its first sync). */
export async function chunkCount(root: string, topicId: string): Promise<number> {
  const head = await loadHead(root, topicId);
  return head ? head.files.chunkTotal() : 0;
}

export function topicReady(root: string, topicId: string): boolean {
  return existsSync(join(root, 'references', topicId, 'topic.md'));
}

export interface TopicSpec {
  topicId: string;
  title: string;
  url: string;
  embedderFlag: string;
  /** Chunk vectors: on (default: the bench measures them) or as the model decides (`auto`). */
  chunks?: 'on' | 'auto';
}

/**
 * A new root (whatever was there is removed) holding one topic created from a git URL. The old
 * root's embedding cache is carried over: it is keyed by model and content hash, so it stays
 * valid, and it is what makes a rerun with a slow embedder cheap.
 */
export async function freshRootWithTopic(root: string, spec: TopicSpec, progress: Progress): Promise<CreateResult> {
  const cache = embeddingCacheDir(root);
  const kept = `${root}.cache-kept`;
  rmSync(kept, { recursive: true, force: true });
  if (existsSync(cache)) renameSync(cache, kept);
  rmSync(root, { recursive: true, force: true });
  await initRoot(root);
  allowLocalRepository(root, spec.url);
  if (existsSync(kept)) {
    mkdirSync(dirname(cache), { recursive: true });
    renameSync(kept, cache);
  }
  // The embedder is a recorded choice, and create builds only the lexical index: record it, then
  // build every vector (chunks included: the bench measures them) in this process before asking.
  const embed = spec.embedderFlag !== 'none';
  // The bench builds vectors itself, timed, in this process: no background worker beside it.
  process.env.TKOMA_REF_VECTOR_WORKER = 'off';
  if (embed) {
    const { setEmbedder } = await import('../../src/lib/vectors/choice.js');
    await setEmbedder(root, { provider: spec.embedderFlag, chunks: spec.chunks ?? 'on' }, { startWorker: false });
  }
  const req = validateCreateRequest({ topic_id: spec.topicId, title: spec.title, sources: [{ type: 'git', url: spec.url }] });
  const res = await createTopic(root, req, { yes: true, author: { ghost: 'tkoma-bench' }, embedderFlag: embed ? undefined : 'none', progress });
  if (res.status !== 'created') throw new Error(`topic ${spec.topicId} was not created: ${res.status}`);
  if (res.warnings.length) progress.warn(res.warnings.join('; '));
  if (embed) {
    const { resolveEmbedder } = await import('../../src/lib/embedding/root-embedder.js');
    const { buildVectors } = await import('../../src/lib/vectors/builder.js');
    const { chunkVectorsFor } = await import('../../src/lib/vectors/space.js');
    const { embedder } = await resolveEmbedder(root);
    if (!embedder) throw new Error(`embedder ${spec.embedderFlag} is not available`);
    await buildVectors(root, { embedder, chunks: chunkVectorsFor(spec.chunks ?? 'on', embedder.key) });
  }
  return res;
}
