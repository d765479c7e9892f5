/**
 * Phase A of `refresh`, without the lock: ask each source's upstream (a cheap `git ls-remote`)
 * and fetch what moved into a staging folder, within the topic's caps and never taking a name
 * another source (or a file nobody fetched) holds. Shared by refresh and its dry run, which
 * fetches into a temporary folder and deletes it.
 */
import { join } from 'node:path';

import { appendAll } from '../append.js';
import type { Progress } from '../progress.js';
import type { Limits } from '../safety/limits.js';
import { asTkomaError } from '../errors.js';
import { type LsRemoteListing, remoteCommit } from '../sources/git.js';
import { resolveVersionTag } from '../sources/git-version.js';
import { type NpmResolved, npmSourceFields, resolveNpmSource } from '../sources/npm/npm.js';
import { isFullCommitSha, repoDisplayName } from '../sources/git-url.js';
import { maxPagesCapOf } from '../store/config.js';
import type { TopicFront, TopicSource } from '../store/model.js';
import { readManifest, readTopic } from '../store/topic-files.js';
import { scanTree } from './carry.js';
import type { SourceRequest } from './request.js';
import { type FetchedSource, fetchOneSource } from './fetch.js';
import { assertSourcesAllowed, type FetchLimits, resolveLimits } from './fetch-limits.js';
import { NameBook, type Naming, sourcePrefixes } from './naming.js';

/** What phase A (no lock) learned about one source. */
export type Fetched =
  /** `remote`: the commit (git) or exact version (npm) upstream has now; `upstream`: a newer version an exact pin does not follow. */
  | { kind: 'up_to_date'; remote: string; upstream?: string }
  /** `code`: the root's policy refused the source (no request was sent); a network or upstream failure otherwise. */
  | { kind: 'failed' | 'ref_gone'; error: string; code?: 'NOT_ALLOWED' }
  | { kind: 'fetched'; fetched: FetchedSource; dir: string };

/**
 * The ref refresh asks for: a branch stays a branch and a tag a tag (`refs/heads/<ref>`,
 * `refs/tags/<ref>`), so a deleted branch is not silently replaced by a tag of the same name.
 * Sources recorded before the kind was recorded (or pinned to a commit) ask as given.
 */
export function followedRef(src: Pick<TopicSource, 'ref' | 'ref_kind'>): string | undefined {
  const { ref, ref_kind: kind } = src;
  if (!ref || !kind || ref === 'HEAD' || ref.startsWith('refs/') || isFullCommitSha(ref)) return ref;
  return `refs/${kind === 'tag' ? 'tags' : 'heads'}/${ref}`;
}

/** The request that fetches a versioned source again: its package or URL, and the version it follows. */
function versionSpec(src: TopicSource): SourceRequest {
  return { type: src.type, url: src.url, ...(src.package ? { package: src.package } : {}), ...(src.version ? { version: src.version } : {}), ...(src.paths ? { paths: src.paths } : {}) };
}

export interface Upstream {
  /** The topic as phase A read it. */
  seen: TopicFront;
  prefixes: string[];
  outcomes: Fetched[];
  limits: Limits;
}

export async function fetchUpstream(root: string, id: string, staging: string, opts: { progress: Progress; limits?: FetchLimits }): Promise<Upstream> {
  const { front: seen, dir: seenDir } = await readTopic(root, id);
  const prefixes = sourcePrefixes(seen.sources);
  // The caps hold for the whole topic: each source gets what the others (as they stand) leave.
  const { limits, fetch } = await resolveLimits(root, undefined, opts.limits);
  if (fetch.policy) assertSourcesAllowed(fetch.policy, seen.sources);
  const maxPagesCap = seen.sources.some((src) => src.crawl) ? await maxPagesCapOf(root) : Infinity;
  const seenManifest = await readManifest(seenDir);
  const holding = seen.sources.map((src, i) => seenManifest.filter((rec) => rec.source_url === src.url && (!prefixes[i] || rec.path.startsWith(`${prefixes[i]}/`))));
  const budgetExcept = (i: number) => {
    const others = holding.filter((_, j) => j !== i).flat();
    return { files: limits.max_files - others.length, bytes: limits.max_topic_bytes - others.reduce((n, rec) => n + rec.bytes, 0) };
  };
  // Names each source may not take: every file in the folder and in the manifest but its own.
  const seenNames = [...new Set([...scanTree(seenDir).keys(), ...seenManifest.map((rec) => rec.path)])];
  const claimedNow: string[] = [];
  const namingFor = (i: number): Naming => {
    const own = new Set(holding[i].map((rec) => rec.path));
    const book = new NameBook([...seenNames.filter((p) => !own.has(p)), ...claimedNow]);
    if (seen.sources[i].crawl) {
      // A crawl: every page keeps its name and record, and is asked for with the validators it was stored with.
      const pages = new Map(
        holding[i]
          .filter((rec) => rec.page_url)
          .map((rec) => [
            rec.page_url!,
            { path: rec.path, fetched: { bytes: rec.bytes, sha256: rec.sha256, flags: rec.flags ?? [] }, ...(rec.etag ? { etag: rec.etag } : {}), ...(rec.last_modified ? { last_modified: rec.last_modified } : {}) },
          ]),
      );
      return { book, pages, storedDir: seenDir };
    }
    const recorded = seen.sources[i].type === 'web' ? holding[i][0]?.path : undefined;
    return { book, ...(recorded ? { recorded } : {}) };
  };
  const outcomes: Fetched[] = [];
  for (let i = 0; i < seen.sources.length; i++) {
    const src = seen.sources[i];
    const label = src.type === 'git' ? `Refresh ${repoDisplayName(src.url)}` : src.type === 'npm' ? `Refresh ${src.package}@${src.version ?? 'latest'}` : `Refresh ${src.url}`;
    outcomes.push(
      await opts.progress.task(label, async (update): Promise<Fetched> => {
        // A cap lowered since the crawl was approved (or a topic.md edited past it): asked for no page, its files kept.
        if (src.crawl && src.crawl.max_pages > maxPagesCap) {
          return { kind: 'failed', code: 'NOT_ALLOWED', error: `crawl_max_pages = ${src.crawl.max_pages} in topic.md is over the cap of ${maxPagesCap} (\`[crawl] max_pages_cap\` in tkoma-ref.toml): lower one or raise the other` };
        }
        const ref = followedRef(src);
        let resolved: NpmResolved | undefined;
        let listing: LsRemoteListing | undefined;
        if (src.type === 'npm') {
          // One registry document: an exact version stays, a range or dist-tag moves to its newest match.
          update('checking the registry');
          try {
            resolved = await resolveNpmSource({ package: src.package!, ...(src.version ? { version: src.version } : {}) }, fetch.policy ? { policy: fetch.policy } : {});
          } catch (err) {
            return { kind: 'failed', error: asTkomaError(err).message };
          }
          const upstream = npmSourceFields(resolved).upstream_version;
          if (resolved.version === src.resolved_version && holding[i].length > 0) return { kind: 'up_to_date', remote: resolved.version, ...(upstream ? { upstream } : {}) };
        } else if (src.type === 'git' && src.version) {
          // The newest tag matching the version: the same tag at the same commit is up to date.
          update('checking tags');
          try {
            const t = await resolveVersionTag(src.url, src.version, { policy: fetch.policy });
            if (t.tag === src.ref && t.commit === src.commit) return { kind: 'up_to_date', remote: t.commit, ...(t.upstream ? { upstream: t.upstream } : {}) };
          } catch (err) {
            return { kind: 'failed', error: asTkomaError(err).message };
          }
        } else if (src.type === 'git') {
          update('checking upstream');
          const checked = await remoteCommit({ url: src.url, ref }, { policy: fetch.policy }).catch(() => undefined);
          const remote = checked?.commit;
          if (remote && remote === src.commit) return { kind: 'up_to_date', remote };
          // The fetch below resolves the ref in this answer: one ls-remote per refresh, not two.
          listing = checked?.listing;
          if (remote === null && ref !== src.ref) {
            // The branch (tag) is gone; say so, and whether the other kind of that name exists.
            const other = (await remoteCommit({ url: src.url, ref: src.ref }, { policy: fetch.policy }).catch(() => null))?.commit;
            const otherRef = `refs/${src.ref_kind === 'tag' ? 'heads' : 'tags'}/${src.ref}`;
            return {
              kind: 'ref_gone',
              error:
                `${src.ref_kind} "${src.ref}" no longer exists upstream` +
                (other ? `; ${otherRef} does, but refresh does not switch by itself (set ref = "${otherRef}" in topic.md to follow it)` : ''),
            };
          }
        }
        const dir = join(staging, String(i));
        const spec = src.type === 'npm' || src.version ? versionSpec(src) : { type: src.type, url: src.url, ...(ref ? { ref } : {}), ...(src.paths ? { paths: src.paths } : {}), ...(src.crawl ? { crawl: src.crawl } : {}) };
        const fetched = await fetchOneSource(spec, prefixes[i], dir, fetch, update, budgetExcept(i), namingFor(i), undefined, { npm: resolved, listing });
        if (fetched.ok) {
          holding[i] = fetched.files;
          appendAll(claimedNow, fetched.files.map((rec) => rec.path));
        }
        return fetched.ok ? { kind: 'fetched', fetched, dir } : { kind: 'failed', error: fetched.error?.message ?? 'failed' };
      }),
    );
  }
  return { seen, prefixes, outcomes, limits };
}
