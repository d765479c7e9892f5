/**
 * Validation of everything a user can pass to git: URLs, refs and paths. These checks run before
 * any git process starts, so option injection (`--upload-pack=…`, `-oProxyCommand`) and dangerous
 * transports (`ext::`, `fd::`) never reach git. Pure functions.
 */
import { TkomaError } from '../errors.js';
import { localPathOf } from './local-roots.js';

export interface GitUrlOptions {
  /** Accept file:// URLs (default true). Callers exposed to untrusted input may turn this off. */
  allowFile?: boolean;
}

const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f]/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const NETWORK_SCHEMES = new Set(['https', 'http', 'ssh']);
// `user@host:path`, the scp-like form git treats as ssh. The user part is required so that
// strings like `javascript:x` or `c:dir` are not taken for host names.
const SCP_LIKE = /^(?:([^@/:]+)@)([A-Za-z0-9][A-Za-z0-9.-]*):(.+)$/;
const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$/;

function invalidUrl(url: string, why: string): TkomaError {
  return new TkomaError('INVALID_URL', `Invalid git URL: ${why}`, { url: redactUrl(url) });
}

/** Hides credentials embedded in a URL (`https://user:token@host/…`) before it reaches any message. */
export function redactUrl(text: string): string {
  return text.replace(/([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/@\s]+)@/g, (all, scheme: string, userinfo: string) =>
    // An ssh user name is no secret; over http(s) the user part often carries a token.
    scheme.toLowerCase() === 'ssh' && !userinfo.includes(':') ? all : `${scheme}://***@`,
  );
}

/** The scheme git will use for a validated URL. */
export function gitUrlScheme(url: string): 'https' | 'http' | 'ssh' | 'file' {
  const m = SCHEME.exec(url);
  if (!m) return 'ssh'; // scp-like
  return m[1]!.toLowerCase() as 'https' | 'http' | 'ssh' | 'file';
}

export function validateGitUrl(url: string, opts: GitUrlOptions = {}): void {
  const allowFile = opts.allowFile ?? true;
  if (typeof url !== 'string' || url.length === 0) throw invalidUrl(String(url), 'empty');
  if (url.startsWith('-')) throw invalidUrl(url, 'must not start with "-"');
  // `<transport>::<address>` runs git-remote-<transport>; ext:: and fd:: can run commands.
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(url)) {
    throw new TkomaError('UNSUPPORTED_SCHEME', 'Git transports of the form "<name>::" are not allowed', {
      url: redactUrl(url),
      allowed: allowedSchemes(allowFile),
    });
  }
  if (CONTROL_OR_SPACE.test(url)) throw invalidUrl(url, 'contains whitespace or control characters');
  const m = SCHEME.exec(url);
  if (m) {
    const scheme = m[1]!.toLowerCase();
    if (scheme === 'file') {
      if (!allowFile) {
        throw new TkomaError('UNSUPPORTED_SCHEME', 'file:// URLs are not allowed here', {
          url,
          allowed: allowedSchemes(allowFile),
        });
      }
      return validateFileUrl(url);
    }
    if (!NETWORK_SCHEMES.has(scheme)) {
      throw new TkomaError('UNSUPPORTED_SCHEME', `Unsupported URL scheme "${scheme}"`, {
        url: redactUrl(url),
        allowed: allowedSchemes(allowFile),
      });
    }
    return validateNetworkUrl(url, scheme);
  }
  const scp = SCP_LIKE.exec(url);
  if (scp) {
    const [, user, host, path] = scp;
    if (user!.startsWith('-')) throw invalidUrl(url, 'bad user name');
    if (!HOST.test(host!)) throw invalidUrl(url, 'bad host name');
    if (path!.startsWith('-')) throw invalidUrl(url, 'path must not start with "-"');
    return;
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) {
    throw new TkomaError('UNSUPPORTED_SCHEME', 'Unsupported URL scheme', {
      url: redactUrl(url),
      allowed: allowedSchemes(allowFile),
    });
  }
  throw invalidUrl(url, `expected one of ${allowedSchemes(allowFile).join(', ')}`);
}

function allowedSchemes(allowFile: boolean): string[] {
  const list = ['https://', 'http://', 'ssh://', 'git@host:owner/repo'];
  return allowFile ? [...list, 'file://'] : list;
}

function validateNetworkUrl(url: string, scheme: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidUrl(url, 'not a well-formed URL');
  }
  // ssh:// hosts and users end up as ssh arguments: a leading "-" would be read as an option.
  const rawHost = url.slice(scheme.length + 3).split('/')[0]!.split('@').pop()!;
  if (!parsed.hostname || rawHost === '' || rawHost.startsWith('-') || !HOST.test(parsed.hostname)) {
    throw invalidUrl(url, 'bad host name');
  }
  if (decodeOrRefuse(url, parsed.username).startsWith('-')) throw invalidUrl(url, 'bad user name');
  if (parsed.pathname === '' || parsed.pathname === '/') throw invalidUrl(url, 'no repository path');
}

/** %-decodes a URL part; a malformed escape (decodeURIComponent's URIError) is a bad URL, not a crash. */
function decodeOrRefuse(url: string, part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalidUrl(url, 'malformed %-escape');
  }
}

function validateFileUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidUrl(url, 'not a well-formed file URL');
  }
  if (parsed.hostname !== '' && parsed.hostname !== 'localhost') {
    throw invalidUrl(url, 'file URLs must name a local path (file:///path)');
  }
  const path = decodeOrRefuse(url, parsed.pathname);
  if (!path.startsWith('/') || path === '/') throw invalidUrl(url, 'file URLs need an absolute path');
  if (path.includes('\u0000')) throw invalidUrl(url, 'contains a NUL byte');
}

/** Full object ids: 40 hex digits (SHA-1) or 64 (SHA-256). */
export function isFullCommitSha(ref: string): boolean {
  return /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/.test(ref);
}

/** Refuses anything git would not take as a ref name, and anything that could act as an option. */
export function validateRef(ref: string): void {
  const bad = (why: string) => new TkomaError('INVALID_REF', `Invalid git ref: ${why}`, { ref });
  if (typeof ref !== 'string' || ref.length === 0) throw bad('empty');
  if (ref.startsWith('-')) throw bad('must not start with "-"');
  if (ref.includes('..')) throw bad('must not contain ".."');
  if (/[\u0000-\u0020\u007f]/.test(ref)) throw bad('must not contain spaces or control characters');
  if (/[:~^?*[\\]/.test(ref)) throw bad('must not contain any of : ~ ^ ? * [ \\');
  if (ref === '@') throw bad('"@" alone is git\'s name for HEAD, not a branch, tag or commit: name one');
  if (ref.includes('@{')) throw bad('must not contain "@{"');
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) throw bad('bad slashes');
  if (ref.endsWith('.') || ref.endsWith('.lock')) throw bad('must not end with "." or ".lock"');
  if (ref.split('/').some((part) => part.startsWith('.'))) throw bad('no component may start with "."');
}

/**
 * Normalises user paths to repository-relative POSIX paths. A trailing "/" is kept: it marks a
 * folder. A path without it matches a file or a folder of that name.
 */
export function normalizePaths(paths: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of paths) {
    const bad = (why: string) => new TkomaError('INVALID_PATH', `Invalid path "${raw}": ${why}`, { path: raw });
    if (typeof raw !== 'string') throw bad('not a string');
    if (raw.includes('\u0000')) throw bad('contains a NUL byte');
    if (/[\u0001-\u001f\u007f]/.test(raw)) throw bad('contains control characters');
    if (raw.includes('\\')) throw bad('use "/" as the separator (backslashes are not allowed)');
    if (raw.startsWith('-')) throw bad('must not start with "-"');
    if (raw.startsWith('/')) throw bad('must be relative to the repository root');
    const isFolder = raw.endsWith('/');
    const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.some((p) => p === '..')) throw bad('must not contain ".." segments');
    if (parts.length === 0) throw bad('empty (omit paths to take the whole repository)');
    if (parts[0]!.startsWith('-')) throw bad('must not start with "-"');
    const norm = parts.join('/') + (isFolder ? '/' : '');
    if (!seen.has(norm)) {
      seen.add(norm);
      out.push(norm);
    }
  }
  return out;
}

/**
 * What an operator approves, named in full: `https://github.com/o/r` (credentials redacted), or
 * `local repository /home/me/x` for file:// (a local path is not a download, and says so): the
 * same path the `[sources] local_roots` check reads.
 */
export function gitSourceLabel(url: string): string {
  const path = localPathOf(url);
  return path === null ? redactUrl(url) : `local repository ${path.replace(/\/+$/, '') || '/'}`;
}

/** A short human name for a repository: "owner/repo" for hosted repos, the folder name for file://. */
export function repoDisplayName(url: string): string {
  const stripGit = (s: string) => s.replace(/\.git$/i, '');
  let path: string;
  let scheme: string | null = null;
  const m = SCHEME.exec(url);
  if (m) {
    scheme = m[1]!.toLowerCase();
    try {
      path = decodeURIComponent(new URL(url).pathname);
    } catch {
      path = url.slice(m[0].length).replace(/^[^/]*/, '');
    }
  } else {
    const scp = SCP_LIKE.exec(url);
    path = scp ? scp[3]! : url;
  }
  const segments = path.split('/').filter((s) => s !== '');
  if (segments.length === 0) return redactUrl(url);
  if (scheme === 'file') return stripGit(segments[segments.length - 1]!);
  const last = stripGit(segments[segments.length - 1]!);
  if (segments.length === 1) return last;
  return `${segments[segments.length - 2]}/${last}`;
}

/** Owner and repository for github.com URLs (https, ssh or scp-like), or null for any other host. */
export function githubRepo(url: string): { owner: string; repo: string } | null {
  let host: string;
  let path: string;
  const m = SCHEME.exec(url);
  if (m) {
    try {
      const u = new URL(url);
      host = u.hostname;
      path = u.pathname;
    } catch {
      return null;
    }
  } else {
    const scp = SCP_LIKE.exec(url);
    if (!scp) return null;
    host = scp[2]!;
    path = scp[3]!;
  }
  if (!/^(www\.)?github\.com$/i.test(host)) return null;
  const segs = path.split('/').filter((s) => s !== '');
  if (segs.length !== 2) return null;
  const owner = segs[0]!;
  const repo = segs[1]!.replace(/\.git$/i, '');
  if (!/^[A-Za-z0-9_.-]+$/.test(owner) || !/^[A-Za-z0-9_.-]+$/.test(repo)) return null;
  return { owner, repo };
}
