/**
 * Talking to an npm registry: the package document (abbreviated "corgi" form, which lists every
 * version with its `dist`), one version's full document (repository, gitHead), and the tarball.
 * Each request carries the credentials npm would send to that URL (npmrc.ts) and follows at most
 * a few redirects, each re-checked; bodies are read up to a byte cap within one deadline.
 */
import { TkomaError } from '../../errors.js';
import { policedFetch } from '../../net/http.js';
import { DEFAULT_POLICY, type SourcePolicy } from '../../net/policy.js';
import { redirectProblem } from '../web-url.js';
import { authorizationFor, type NpmConfig, registryFor } from './npmrc.js';

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const REGISTRY_TIMEOUT_MS = 60_000;
/** A package document: the largest on npmjs (abbreviated) are tens of megabytes. */
const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;
const USER_AGENT = 'tkoma-ref/0.1 (npm source)';

export interface GetOptions {
  accept?: string;
  maxBytes?: number;
  timeoutMs?: number;
  /** The root's network policy: the registry and every redirect hop must be an address it allows. */
  policy?: SourcePolicy;
}

function unreachable(url: string, err: unknown, timedOut: boolean): TkomaError {
  if (err instanceof TkomaError) return err;
  if (timedOut) return new TkomaError('SOURCE_UNREACHABLE', `${url} did not answer in time`, { url });
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new TkomaError('SOURCE_UNREACHABLE', `cannot reach ${url}: ${cause?.message ?? (err as Error).message}`, { url, ...(cause?.code ? { cause: cause.code } : {}) });
}

/**
 * GET `url` as npm would (its credentials for that URL only), through the network policy (a
 * registry on this machine or a private network needs `[network] allow`), the body as bytes;
 * null on 404.
 */
export async function registryGet(cfg: NpmConfig, url: string, opts: GetOptions = {}): Promise<Buffer | null> {
  const timeoutMs = opts.timeoutMs ?? REGISTRY_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? MAX_DOCUMENT_BYTES;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      if (current.protocol !== 'https:' && current.protocol !== 'http:') {
        throw new TkomaError('FETCH_FAILED', `${current.href}: only http(s) registries are supported`, { url: current.href });
      }
      const auth = authorizationFor(cfg, current.href);
      // One hop at a time under the policy, so each hop gets only the credentials keyed to its own URL.
      const res = await policedFetch(
        current,
        { method: 'GET', signal: controller.signal, headers: { 'user-agent': USER_AGENT, accept: opts.accept ?? '*/*', ...(auth ? { authorization: auth } : {}) } },
        { policy: opts.policy ?? DEFAULT_POLICY },
      );
      if (REDIRECTS.has(res.status)) {
        await res.body?.cancel().catch(() => undefined);
        const location = res.headers.get('location');
        if (!location || hop >= MAX_REDIRECTS) throw new TkomaError('FETCH_FAILED', `${current.href}: too many or empty redirects`, { url: current.href });
        const next = new URL(location, current);
        const problem = redirectProblem(current, next);
        if (problem) throw new TkomaError('FETCH_FAILED', `${current.href}: ${problem}`, { url: current.href });
        current = next;
        continue;
      }
      if (res.status === 404) {
        await res.body?.cancel().catch(() => undefined);
        return null;
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        const why = res.status === 401 || res.status === 403 ? ' (the registry wants credentials: npm login, or a token in .npmrc)' : '';
        throw new TkomaError('SOURCE_UNREACHABLE', `${current.href} answered ${res.status}${why}`, { url: current.href, status: res.status });
      }
      return await readCapped(res, maxBytes, current.href);
    }
  } catch (err) {
    throw unreachable(url, err, timedOut);
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(res: Response, maxBytes: number, url: string): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  const tooLarge = () => new TkomaError('FETCH_FAILED', `${url} is larger than ${maxBytes} bytes`, { url, max_bytes: maxBytes, reason: 'too_large' });
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let n = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      n += chunk.length;
      if (n > maxBytes) throw tooLarge();
      chunks.push(Buffer.from(chunk));
    }
  }
  return Buffer.concat(chunks, n);
}

/** The document URL of a package: `@scope/name` is escaped as `@scope%2fname`, as npm does. */
export function packumentUrl(registry: string, pkg: string): string {
  return registry + pkg.replace('/', '%2f');
}

/** What the registry publishes about one version. */
export interface VersionDist {
  tarball: string;
  integrity?: string;
  shasum?: string;
  fileCount?: number;
  unpackedSize?: number;
}

export interface Packument {
  name: string;
  distTags: Record<string, string>;
  versions: Map<string, { dist: VersionDist; repository?: unknown; gitHead?: string; description?: string; deprecated?: string }>;
}

function invalidDocument(url: string, why: string): TkomaError {
  return new TkomaError('FETCH_FAILED', `${url} is not an npm package document: ${why}`, { url });
}

/** Parses a (full or abbreviated) package document. Pure. */
export function parsePackument(body: Buffer | string, url: string): Packument {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString());
  } catch {
    throw invalidDocument(url, 'not JSON');
  }
  if (!doc || typeof doc !== 'object') throw invalidDocument(url, 'not an object');
  const d = doc as Record<string, unknown>;
  const tags = (d['dist-tags'] ?? {}) as Record<string, unknown>;
  const distTags: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) if (typeof v === 'string') distTags[k] = v;
  const versions: Packument['versions'] = new Map();
  for (const [v, raw] of Object.entries((d.versions ?? {}) as Record<string, unknown>)) {
    const m = raw as Record<string, unknown> | null;
    const dist = m?.dist as Record<string, unknown> | undefined;
    if (!dist || typeof dist.tarball !== 'string') continue;
    versions.set(v, {
      dist: {
        tarball: dist.tarball,
        ...(typeof dist.integrity === 'string' ? { integrity: dist.integrity } : {}),
        ...(typeof dist.shasum === 'string' ? { shasum: dist.shasum } : {}),
        ...(typeof dist.fileCount === 'number' ? { fileCount: dist.fileCount } : {}),
        ...(typeof dist.unpackedSize === 'number' ? { unpackedSize: dist.unpackedSize } : {}),
      },
      ...(m!.repository !== undefined ? { repository: m!.repository } : {}),
      ...(typeof m!.gitHead === 'string' ? { gitHead: m!.gitHead } : {}),
      ...(typeof m!.description === 'string' ? { description: m!.description } : {}),
      ...(typeof m!.deprecated === 'string' ? { deprecated: m!.deprecated } : {}),
    });
  }
  return { name: typeof d.name === 'string' ? d.name : '', distTags, versions };
}

/** The package's document from the registry its scope resolves through (abbreviated form). */
export async function fetchPackument(cfg: NpmConfig, pkg: string, opts: GetOptions = {}): Promise<{ packument: Packument; url: string; registry: string }> {
  const registry = registryFor(cfg, pkg);
  const url = packumentUrl(registry, pkg);
  const body = await registryGet(cfg, url, { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*', ...opts });
  if (body === null) throw new TkomaError('FETCH_FAILED', `the registry ${registry} has no package "${pkg}"`, { package: pkg, registry, reason: 'not_found' });
  return { packument: parsePackument(body, url), url, registry };
}

/** One version's full document (repository, gitHead), or null when the registry has no such URL. */
export async function fetchVersionDocument(cfg: NpmConfig, pkg: string, version: string, opts: GetOptions = {}): Promise<Record<string, unknown> | null> {
  const url = `${packumentUrl(registryFor(cfg, pkg), pkg)}/${encodeURIComponent(version)}`;
  const body = await registryGet(cfg, url, { accept: 'application/json', maxBytes: 16 * 1024 * 1024, ...opts }).catch(() => null);
  if (body === null) return null;
  try {
    const doc = JSON.parse(body.toString('utf8')) as unknown;
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * A package.json `repository` as a browsable https URL: `git+https://…/x.git`, `git://…`,
 * `git@github.com:o/r.git`, `github:o/r` and the `o/r` shorthand all become
 * `https://github.com/o/r`. Null when it names no repository. Pure.
 */
export function repositoryUrl(repository: unknown): string | null {
  const raw = typeof repository === 'string' ? repository : repository && typeof repository === 'object' ? (repository as { url?: unknown }).url : undefined;
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  let s = raw.trim();
  const short = /^(?:(github|gitlab|bitbucket):)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(s);
  if (short && !s.includes('://')) {
    const host = { github: 'github.com', gitlab: 'gitlab.com', bitbucket: 'bitbucket.org' }[short[1] ?? 'github']!;
    return `https://${host}/${short[2]}/${short[3]}`;
  }
  s = s.replace(/^git\+/, '');
  const scp = /^(?:ssh:\/\/)?git@([^:/]+)[:/](.+)$/.exec(s);
  if (scp) s = `https://${scp[1]}/${scp[2]}`;
  s = s.replace(/^git:\/\//, 'https://').replace(/^ssh:\/\/(?:[^@/]+@)?/, 'https://');
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  return `https://${u.host}${u.pathname.replace(/\.git$/, '').replace(/\/+$/, '')}`;
}
