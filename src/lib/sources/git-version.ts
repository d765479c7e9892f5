/**
 * Git sources with a `version`: an exact version or a semver range over the repository's tags
 * (`^0.6` → `v0.6.2`), resolved by one `git ls-remote --tags` (no download).
 */
import { TkomaError } from '../errors.js';
import { type GitCallOptions, lsRemote } from './git-remote.js';
import { compareVersions, pickTag, tagVersion, versionSpecKind } from './versions.js';

export interface VersionTag {
  tag: string;
  /** The commit the tag points at (peeled for annotated tags). */
  commit: string;
  /** For an exact version: the newest version tag, when it is newer (a pin does not follow it). */
  upstream?: string;
}

/** The tag names of a listing and the commit each points at (annotated tags peeled). Pure. */
export function tagsOf(refs: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, oid] of refs) {
    if (!name.startsWith('refs/tags/')) continue;
    const peeled = name.endsWith('^{}');
    const tag = name.slice('refs/tags/'.length, peeled ? -3 : undefined);
    if (peeled || !out.has(tag)) out.set(tag, oid);
  }
  return out;
}

/** The tag a version range means at the remote now. INVALID_REF when no tag matches. */
export async function resolveVersionTag(url: string, range: string, opts: GitCallOptions = {}): Promise<VersionTag> {
  const listing = await lsRemote(url, ['refs/tags/*'], opts);
  const tags = tagsOf(listing.refs);
  const tag = pickTag([...tags.keys()], range);
  if (tag === null) {
    const versions = [...tags.keys()].filter((t) => tagVersion(t) !== null);
    throw new TkomaError('INVALID_REF', `no tag of ${url} matches version "${range}" (${versions.length} version tags${versions.length ? `, newest ${pickTag(versions, '*') ?? versions[versions.length - 1]}` : ''})`, {
      url,
      version: range,
      reason: 'no_matching_version',
    });
  }
  const out: VersionTag = { tag, commit: tags.get(tag)! };
  if (versionSpecKind(range) === 'exact') {
    const newest = pickTag([...tags.keys()], '*');
    if (newest && compareVersions(newest, tag) === 1) out.upstream = newest;
  }
  return out;
}
