/**
 * Which topic covers a dependency, and whether its version is the project's: matched by package
 * source (an npm topic of that package), then by repository URL (a git source, or the repository
 * an npm source was published from), then by name (topic id or a tag). Pure.
 */
import type { TopicFront, TopicSource } from '../store/model.js';
import { sourceVersion } from '../store/model.js';
import { compareVersions, tagVersion } from '../sources/versions.js';
import type { Dependency } from './lockfiles.js';

/** `version unknown`: the topic follows a branch or holds web pages, so no version to compare. */
export type DepStatus = 'same' | 'topic older' | 'topic newer' | 'no topic' | 'version unknown';

export interface DepMatch {
  topic_id: string;
  matched_by: 'package' | 'repository' | 'name';
  /** The version the topic's matching source is at (package version or tag), or null. */
  topic_version: string | null;
}

/** `https://github.com/O/r.git/` and `git@github.com:o/r` → `github.com/o/r`, for comparing. */
export function repoKey(url: string): string | null {
  const scp = /^(?:[\w.-]+@)?([^:/]+):(?!\/)(.+)$/.exec(url);
  let s = scp && !url.includes('://') ? `${scp[1]}/${scp[2]}` : url.replace(/^[a-z+]+:\/\/(?:[^@/]+@)?/i, '');
  s = s.replace(/\.git\/?$/, '').replace(/\/+$/, '').toLowerCase();
  return s.includes('/') ? s : null;
}

function versionOfSource(src: TopicSource): string | null {
  const v = sourceVersion(src);
  if (!v) return null;
  return src.type === 'git' ? (tagVersion(v) ?? v) : v;
}

/** The topic that covers `dep`, best evidence first; obsolete topics never count. */
export function findTopic(dep: Dependency, topics: readonly TopicFront[]): DepMatch | null {
  const live = topics.filter((t) => t.status !== 'obsolete');
  // Several topics may cover a package (one per version): prefer the one at the project's version.
  const best = (cands: { topic: TopicFront; src?: TopicSource }[], by: DepMatch['matched_by']): DepMatch | null => {
    if (cands.length === 0) return null;
    const scored = cands.map((c) => ({ ...c, v: c.src ? versionOfSource(c.src) : null }));
    const pick = scored.find((c) => c.v !== null && compareVersions(c.v, dep.version) === 0) ?? scored.find((c) => c.v !== null) ?? scored[0]!;
    return { topic_id: pick.topic.id, matched_by: by, topic_version: pick.v };
  };
  if (dep.ecosystem === 'npm') {
    const byPackage = live.flatMap((topic) => topic.sources.filter((s) => s.type === 'npm' && s.package === dep.name).map((src) => ({ topic, src })));
    const m = best(byPackage, 'package');
    if (m) return m;
  }
  const want = dep.repository ? repoKey(dep.repository) : null;
  if (want) {
    const byRepo = live.flatMap((topic) =>
      topic.sources.filter((s) => (s.type === 'git' && repoKey(s.url) === want) || (s.type === 'npm' && s.repository && repoKey(s.repository) === want)).map((src) => ({ topic, src })),
    );
    const m = best(byRepo, 'repository');
    if (m) return m;
  }
  const short = dep.name.replace(/^@[^/]+\//, '').toLowerCase();
  const names = new Set([dep.name.toLowerCase(), short, `topic-${short}`]);
  const byName = live.filter((t) => names.has(t.id.toLowerCase()) || t.tags.some((tag) => tag.toLowerCase() === dep.name.toLowerCase()));
  return best(
    byName.map((topic) => ({ topic, src: topic.sources.find((s) => versionOfSource(s) !== null) })),
    'name',
  );
}

export function depStatus(dep: Dependency, match: DepMatch | null): DepStatus {
  if (!match) return 'no topic';
  if (match.topic_version === null) return 'version unknown';
  const c = compareVersions(match.topic_version, dep.version);
  return c === null ? 'version unknown' : c === 0 ? 'same' : c < 0 ? 'topic older' : 'topic newer';
}

/** A topic id for a dependency at a version: `zod-3.23.8`, `@scope/x` → `scope-x-1.0.0`. */
export function depTopicId(dep: Pick<Dependency, 'name' | 'version'>): string {
  return `${dep.name}-${dep.version}`
    .toLowerCase()
    .replace(/^@/, '')
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 100);
}

/**
 * A create request for a dependency at exactly the lockfile's version, ready for `topic create
 * --input` (approval as any other): npm packages as npm sources; Go modules on a known host as a
 * git source at the version's tag; crates as their docs.rs page at that version. Null when there
 * is no source to name.
 */
export function createRequestFor(dep: Dependency): Record<string, unknown> | null {
  const base = { topic_id: depTopicId(dep), title: `${dep.name} ${dep.version}`, tags: [dep.name, dep.ecosystem], max_age_days: 0 };
  if (dep.ecosystem === 'npm') return { ...base, sources: [{ type: 'npm', package: dep.name, version: dep.version }] };
  if (dep.ecosystem === 'go' && dep.repository && /^v\d+\.\d+\.\d+$/.test(dep.version)) {
    // A module in a subfolder of its repository tags `sub/v1.2.3`; the root module's tags are plain.
    return { ...base, sources: [{ type: 'git', url: dep.repository, version: dep.version }] };
  }
  if (dep.ecosystem === 'cargo') return { ...base, sources: [{ type: 'web', url: `https://docs.rs/${dep.name}/${dep.version}` }] };
  return null;
}
