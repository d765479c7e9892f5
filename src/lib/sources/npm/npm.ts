/**
 * npm package sources: `{type: "npm", package, version}` where version is exact, a range or a
 * dist-tag (default `latest`). The probe reads only the registry's documents (the exact version,
 * its file count and unpacked size as published); the fetch downloads that version's tarball,
 * refuses it unless its bytes match the published integrity (sha512; sha1 only where the registry
 * publishes nothing stronger), and passes its files through the same rules and caps as a git
 * source's, written by the same no-link, no-overwrite writer.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

import { TkomaError } from '../../errors.js';
import { isInside } from '../../safety/paths.js';
import { CAP_REASONS } from '../../safety/limits.js';
import { BINARY_SNIFF_BYTES, DEFAULT_MAX_FILE_BYTES, skipReason } from '../git-filter.js';
import { type FileWrite, writeFilesSync } from '../git-write.js';
import type { SourcePolicy } from '../../net/policy.js';
import type { TopicSource } from '../../store/model.js';
import { compareVersions, pickVersion, versionSpecKind } from '../versions.js';
import { loadNpmConfig, type NpmConfig } from './npmrc.js';
import { fetchPackument, fetchVersionDocument, registryGet, repositoryUrl, type VersionDist } from './registry.js';
import { readTarball } from './tarball.js';

export interface NpmSourceSpec {
  package: string;
  /** Exact version, range or dist-tag; `latest` when absent. */
  version?: string;
}

/** What the registry says about the version a spec resolves to. */
export interface NpmResolved {
  package: string;
  /** The spec as asked (`^3.23`, `latest`, `3.23.8`). */
  spec: string;
  /** The exact version chosen. */
  version: string;
  registry: string;
  tarball: string;
  /** The integrity the tarball was (or will be) checked against: `sha512-…`, or `sha1-…` from `shasum`. */
  integrity: string | null;
  file_count: number | null;
  unpacked_bytes: number | null;
  repository?: string;
  git_head?: string;
  description?: string;
  deprecated?: string;
  /** The highest version published, when it is not the one chosen (for `topic list`'s hints). */
  latest?: string;
}

export interface NpmCallOptions {
  config?: NpmConfig;
  timeoutMs?: number;
  /** The root's network policy (default: public addresses only). */
  policy?: SourcePolicy;
}

/** The strongest integrity the registry publishes for a version, in SRI form. Pure. */
export function publishedIntegrity(dist: VersionDist): string | null {
  const sri = (dist.integrity ?? '').split(/\s+/).filter(Boolean);
  const strong = sri.find((s) => s.startsWith('sha512-')) ?? sri.find((s) => s.startsWith('sha384-')) ?? sri.find((s) => s.startsWith('sha256-'));
  if (strong) return strong;
  if (dist.shasum && /^[0-9a-f]{40}$/i.test(dist.shasum)) return `sha1-${Buffer.from(dist.shasum, 'hex').toString('base64')}`;
  return sri[0] ?? null;
}

/** Whether `data` has the SRI digest `integrity`. Pure. */
export function matchesIntegrity(data: Buffer, integrity: string): boolean {
  const m = /^(sha512|sha384|sha256|sha1)-([A-Za-z0-9+/=]+)$/.exec(integrity);
  if (!m) return false;
  return createHash(m[1]!).update(data).digest('base64') === m[2];
}

/** The exact version a spec means now, and what the registry publishes about it. */
export async function resolveNpmSource(src: NpmSourceSpec, opts: NpmCallOptions & { withRepository?: boolean } = {}): Promise<NpmResolved> {
  const cfg = opts.config ?? loadNpmConfig();
  const spec = src.version ?? 'latest';
  const net = { timeoutMs: opts.timeoutMs, ...(opts.policy ? { policy: opts.policy } : {}) };
  const { packument, registry } = await fetchPackument(cfg, src.package, net);
  const versions = [...packument.versions.keys()];
  const version = pickVersion(versions, packument.distTags, spec);
  if (version === null) {
    const kind = versionSpecKind(spec);
    const what = kind === 'tag' ? `no dist-tag "${spec}"` : `no version matching "${spec}"`;
    throw new TkomaError('INVALID_REF', `${src.package} has ${what} on ${registry} (latest: ${packument.distTags.latest ?? 'none'})`, {
      package: src.package,
      version: spec,
      reason: 'no_matching_version',
      ...(packument.distTags.latest ? { latest: packument.distTags.latest } : {}),
    });
  }
  const meta = packument.versions.get(version)!;
  let repository = meta.repository;
  let gitHead = meta.gitHead;
  let description = meta.description;
  // The abbreviated document leaves out repository and gitHead: one version's document has them.
  if (opts.withRepository !== false && repository === undefined) {
    const doc = await fetchVersionDocument(cfg, src.package, version, net);
    if (doc) {
      repository = doc.repository;
      if (typeof doc.gitHead === 'string') gitHead = doc.gitHead;
      if (typeof doc.description === 'string') description = doc.description;
    }
  }
  const repo = repositoryUrl(repository);
  const latest = packument.distTags.latest;
  return {
    package: src.package,
    spec,
    version,
    registry,
    tarball: meta.dist.tarball,
    integrity: publishedIntegrity(meta.dist),
    file_count: meta.dist.fileCount ?? null,
    unpacked_bytes: meta.dist.unpackedSize ?? null,
    ...(repo ? { repository: repo } : {}),
    ...(gitHead && /^[0-9a-f]{7,64}$/i.test(gitHead) ? { git_head: gitHead.toLowerCase() } : {}),
    ...(description ? { description: description.slice(0, 300) } : {}),
    ...(meta.deprecated ? { deprecated: meta.deprecated.slice(0, 300) } : {}),
    ...(latest && latest !== version ? { latest } : {}),
  };
}

export interface NpmFetchOptions extends NpmCallOptions {
  maxFileBytes?: number;
  maxFiles?: number;
  maxTotalBytes?: number;
  keepExisting?: boolean;
  onFile?: (path: string, data: Buffer) => void;
  /** Resolved already (a refresh that just checked): saves the registry round trips. */
  resolved?: NpmResolved;
}

export interface NpmFetchResult {
  resolved: NpmResolved;
  files: { path: string; bytes: number }[];
  skipped: { path: string; reason: string; bytes?: number }[];
}

/** The largest tarball downloaded, and the most it may unpack to (a gzip bomb stops there). */
const MAX_TARBALL_BYTES = 256 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;

/**
 * Downloads the resolved version's tarball, checks its integrity, and writes the files the rules
 * and caps keep into destDir (package paths, no `package/` prefix). Nothing is written when the
 * integrity does not match.
 */
export async function fetchNpmSource(src: NpmSourceSpec, destDir: string, opts: NpmFetchOptions = {}): Promise<NpmFetchResult> {
  const cfg = opts.config ?? loadNpmConfig();
  const resolved = opts.resolved ?? (await resolveNpmSource(src, { config: cfg, timeoutMs: opts.timeoutMs, ...(opts.policy ? { policy: opts.policy } : {}) }));
  if (!resolved.integrity) {
    throw new TkomaError('FETCH_FAILED', `${resolved.package}@${resolved.version}: the registry publishes no integrity for the tarball; refused`, { reason: 'no_integrity' });
  }
  const tgz = await registryGet(cfg, resolved.tarball, { maxBytes: MAX_TARBALL_BYTES, timeoutMs: opts.timeoutMs ?? 5 * 60_000, ...(opts.policy ? { policy: opts.policy } : {}) });
  if (tgz === null) throw new TkomaError('FETCH_FAILED', `${resolved.tarball}: not found`, { url: resolved.tarball, reason: 'not_found' });
  if (!matchesIntegrity(tgz, resolved.integrity)) {
    throw new TkomaError('FETCH_FAILED', `${resolved.package}@${resolved.version}: the tarball does not match its published integrity (${resolved.integrity.slice(0, 20)}…); refused, nothing written`, {
      reason: 'integrity_mismatch',
      url: resolved.tarball,
      integrity: resolved.integrity,
    });
  }
  const contents = readTarball(tgz, MAX_UNPACKED_BYTES);
  const root = resolve(destDir);
  const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const skipped: NpmFetchResult['skipped'] = [...contents.skipped];
  const writes: FileWrite[] = [];
  const files: NpmFetchResult['files'] = [];
  let bytesLeft = opts.maxTotalBytes ?? Number.POSITIVE_INFINITY;
  const maxFiles = opts.maxFiles ?? Number.POSITIVE_INFINITY;
  let stopped: string | null = null;
  for (const f of contents.files) {
    // A published package's dist/ is what its users install: no output-folder rule here.
    const reason = skipReason(f.path, f.data.length, f.data.subarray(0, BINARY_SNIFF_BYTES), { maxFileBytes, outputDirs: new Set() });
    const dest = resolve(root, ...f.path.split('/'));
    if (reason) skipped.push({ path: f.path, reason, bytes: f.data.length });
    else if (!isInside(root, dest)) skipped.push({ path: f.path, reason: 'unsafe_path', bytes: f.data.length });
    else if (stopped || files.length >= maxFiles) skipped.push({ path: f.path, reason: (stopped ??= CAP_REASONS.max_files), bytes: f.data.length });
    else if (f.data.length > bytesLeft) skipped.push({ path: f.path, reason: (stopped = CAP_REASONS.max_topic_bytes), bytes: f.data.length });
    else {
      writes.push({ path: f.path, dest, data: f.data });
      bytesLeft -= f.data.length;
      files.push({ path: f.path, bytes: f.data.length });
    }
  }
  const failed = new Set(writeFilesSync(writes, opts.keepExisting ?? false).map((s) => {
    skipped.push(s);
    return s.path;
  }));
  const kept = files.filter((f) => !failed.has(f.path));
  if (opts.onFile) for (const w of writes) if (!failed.has(w.path)) opts.onFile(w.path, w.data);
  if (kept.length === 0) {
    throw new TkomaError('EMPTY_FETCH', `${resolved.package}@${resolved.version}: no file of the package passed the filters and caps`, { package: resolved.package, version: resolved.version });
  }
  return { resolved, files: kept, skipped };
}

/**
 * What a topic's `[[sources]]` entry records of a resolved version. An exact pin never moves, so
 * a newer published version is noted as `upstream_version` (`topic list` shows it); a range or
 * dist-tag follows its newest match at each refresh, so there is nothing to note.
 */
export function npmSourceFields(r: NpmResolved): Pick<TopicSource, 'resolved_version' | 'integrity' | 'tarball' | 'repository' | 'git_head' | 'upstream_version'> {
  const newer = r.latest && versionSpecKind(r.spec) === 'exact' && compareVersions(r.latest, r.version) === 1 ? r.latest : undefined;
  return {
    resolved_version: r.version,
    ...(r.integrity ? { integrity: r.integrity } : {}),
    tarball: r.tarball,
    repository: r.repository,
    git_head: r.git_head,
    upstream_version: newer,
  };
}
