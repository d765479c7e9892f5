/**
 * Which version a request means: an exact version, a semver range (`^3.23`, `~0.6`, `>=1 <2`) or
 * a dist-tag (`latest`, `next`), chosen among a package's published versions or a repository's
 * tags. Pure; semver's own rules (the npm CLI's) decide what satisfies a range.
 */
import { createRequire } from 'node:module';

import type * as Semver from 'semver';

/** semver's modules load on first use (dozens of files): request validation imports this file. */
let loaded: typeof Semver | null = null;
function sv(): typeof Semver {
  loaded ??= createRequire(import.meta.url)('semver') as typeof Semver;
  return loaded;
}

export type VersionSpecKind = 'exact' | 'range' | 'tag';

/** What a version string asks for; null when it is none of the three (a typo, a URL). */
export function versionSpecKind(spec: string): VersionSpecKind | null {
  const s = spec.trim();
  if (s === '') return null;
  if (sv().valid(s) !== null) return 'exact';
  // `v1.2.3` and `=1.2.3` are ranges to semver that match one version: still exact to a reader.
  if (sv().valid(sv().clean(s) ?? '') !== null && /^[=v]+\d/.test(s)) return 'exact';
  if (sv().validRange(s) !== null) return 'range';
  // npm's dist-tag names: not a range, no spaces or slashes, no leading `v` + digit or digit.
  if (/^[A-Za-z][A-Za-z0-9._-]{0,63}$/.test(s) && !/^v\d/i.test(s)) return 'tag';
  return null;
}

/**
 * The version npm would install for `spec` from these versions and dist-tags: an exact version
 * when it was published, the dist-tag's version, or for a range the `latest` tag when it satisfies
 * the range, else the highest satisfying version (prereleases only when the range names one).
 */
export function pickVersion(versions: readonly string[], distTags: Readonly<Record<string, string>>, spec: string): string | null {
  const kind = versionSpecKind(spec);
  if (kind === null) return null;
  const s = spec.trim();
  if (kind === 'tag') {
    const v = distTags[s];
    return v !== undefined && versions.includes(v) ? v : null;
  }
  if (kind === 'exact') {
    const v = sv().clean(s);
    return v !== null && versions.includes(v) ? v : null;
  }
  const latest = distTags.latest;
  if (latest !== undefined && versions.includes(latest) && sv().satisfies(latest, s)) return latest;
  return sv().maxSatisfying(versions.filter((v) => sv().valid(v) !== null), s);
}

/** The version a tag names: `v0.6.2` and `0.6.2` → `0.6.2`; anything else → null. */
export function tagVersion(tag: string): string | null {
  const m = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/.exec(tag);
  return m && sv().valid(m[1]!) !== null ? sv().valid(m[1]!) : null;
}

/**
 * The newest tag matching a range over a repository's tags (`^0.6` → `v0.6.2`). Tags that are not
 * versions are ignored; when `v1.0.0` and `1.0.0` both exist, the `v` form wins (the common one).
 */
export function pickTag(tags: readonly string[], range: string): string | null {
  const kind = versionSpecKind(range);
  if (kind === null || kind === 'tag') return null;
  const byVersion = new Map<string, string>();
  for (const t of tags) {
    const v = tagVersion(t);
    if (v === null) continue;
    const held = byVersion.get(v);
    if (held === undefined || (t.startsWith('v') && !held.startsWith('v'))) byVersion.set(v, t);
  }
  const best = kind === 'exact' ? sv().clean(range) : sv().maxSatisfying([...byVersion.keys()], range);
  return best !== null && byVersion.has(best) ? byVersion.get(best)! : null;
}

/** -1, 0 or 1 as version `a` is older, the same or newer than `b`; null when either is not a version. */
export function compareVersions(a: string, b: string): -1 | 0 | 1 | null {
  const x = cleanish(a);
  const y = cleanish(b);
  return x === null || y === null ? null : sv().compare(x, y);
}

/** A version as semver compares it: `v1.2.3` → `1.2.3`, `1.2` → `1.2.0`, prereleases kept. */
function cleanish(v: string): string | null {
  return sv().valid(v.replace(/^[=v]+/, '')) ?? sv().coerce(v, { includePrerelease: true, loose: true })?.version ?? null;
}

/** Whether `version` satisfies `spec` when it is a range or exact version (a dist-tag says nothing). */
export function satisfiesSpec(version: string, spec: string): boolean | null {
  const kind = versionSpecKind(spec);
  if (kind === null || kind === 'tag') return null;
  const v = cleanish(version);
  return v === null ? null : sv().satisfies(v, spec.trim());
}
