import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import {
  gitSourceLabel,
  githubRepo,
  isFullCommitSha,
  normalizePaths,
  redactUrl,
  repoDisplayName,
  validateGitUrl,
  validateRef,
} from '../../src/lib/sources/git-url.js';

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof TkomaError) return err.code;
    throw err;
  }
}

describe('validateGitUrl', () => {
  it('answers INVALID_URL, never a raw URIError, for malformed %-escapes (found by fuzzing)', () => {
    for (const url of ['file://\\%', 'file:///repo/%E0%A4%A', 'ssh://%E0%A4%A@host/repo.git']) {
      let thrown: unknown;
      try {
        validateGitUrl(url);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, url).toBeInstanceOf(TkomaError);
    }
  });

  it.each([
    'https://github.com/DioxusLabs/dioxus',
    'https://github.com/DioxusLabs/dioxus.git',
    'http://git.example.com:8080/team/repo.git',
    'ssh://git@github.com/DioxusLabs/dioxus.git',
    'ssh://git@[::1]:2222/srv/repo.git',
    'git@github.com:DioxusLabs/dioxus.git',
    'git@gitlab.example.org:group/sub/repo',
    'file:///srv/git/repo.git',
    'file://localhost/srv/git/repo',
  ])('accepts %s', (url) => {
    expect(codeOf(() => validateGitUrl(url))).toBeNull();
  });

  it.each([
    ['ext::sh -c touch /tmp/pwned', 'UNSUPPORTED_SCHEME'],
    ['ext::sh -c touch% /tmp/pwned', 'UNSUPPORTED_SCHEME'],
    ['fd::3', 'UNSUPPORTED_SCHEME'],
    ['git-remote-x::foo', 'UNSUPPORTED_SCHEME'],
    ['--upload-pack=touch /tmp/pwned', 'INVALID_URL'],
    ['-oProxyCommand=touch /tmp/pwned', 'INVALID_URL'],
    ['ssh://-oProxyCommand=touch%20x/repo', 'INVALID_URL'],
    ['ssh://-oProxyCommand=x@host/repo', 'INVALID_URL'],
    ['git@-oProxyCommand=x:repo', 'INVALID_URL'],
    ['-x@host:repo', 'INVALID_URL'],
    ['git@host:-repo', 'INVALID_URL'],
    ['https://github.com/a/b c', 'INVALID_URL'],
    ['https://github.com/a/b\n', 'INVALID_URL'],
    ['https://github.com/a/\u0000b', 'INVALID_URL'],
    ['https://github.com', 'INVALID_URL'],
    ['https:///nohost/repo', 'INVALID_URL'],
    ['ftp://example.com/repo.git', 'UNSUPPORTED_SCHEME'],
    ['git://example.com/repo.git', 'UNSUPPORTED_SCHEME'],
    ['javascript:alert(1)', 'UNSUPPORTED_SCHEME'],
    ['/srv/git/repo', 'INVALID_URL'],
    ['repo', 'INVALID_URL'],
    ['', 'INVALID_URL'],
    ['file://remotehost/srv/repo', 'INVALID_URL'],
    ['file:///', 'INVALID_URL'],
  ])('refuses %j with %s', (url, code) => {
    expect(codeOf(() => validateGitUrl(url))).toBe(code);
  });

  it('refuses file:// when file URLs are not allowed', () => {
    expect(codeOf(() => validateGitUrl('file:///srv/repo', { allowFile: false }))).toBe('UNSUPPORTED_SCHEME');
    expect(codeOf(() => validateGitUrl('https://example.com/a/b', { allowFile: false }))).toBeNull();
  });

  it('never puts credentials into the error', () => {
    try {
      validateGitUrl('https://user:s3cret@example.com/a b');
      expect.unreachable();
    } catch (err) {
      expect(JSON.stringify((err as TkomaError).toJSON())).not.toContain('s3cret');
    }
  });

  it('refuses anything starting with "-" whatever follows', () => {
    fc.assert(
      fc.property(fc.string(), (rest) => {
        expect(codeOf(() => validateGitUrl(`-${rest}`))).not.toBeNull();
      }),
    );
  });
});

describe('redactUrl', () => {
  it('hides user and password in URLs inside text', () => {
    expect(redactUrl("fatal: unable to access 'https://me:tok@host/x.git/': 403")).toBe(
      "fatal: unable to access 'https://***@host/x.git/': 403",
    );
    expect(redactUrl('https://host/x.git')).toBe('https://host/x.git');
    expect(redactUrl('https://ghp_token@github.com/o/r')).toBe('https://***@github.com/o/r');
    expect(redactUrl('ssh://git@github.com/o/r')).toBe('ssh://git@github.com/o/r');
    expect(redactUrl('ssh://git:pw@host/o/r')).toBe('ssh://***@host/o/r');
  });
});

describe('validateRef', () => {
  it.each(['main', 'dev', 'v1.0', 'feature/new-ui', 'refs/heads/main', 'refs/tags/v2.0.1', 'HEAD', 'a'.repeat(40)])(
    'accepts %s',
    (ref) => {
      expect(codeOf(() => validateRef(ref))).toBeNull();
    },
  );

  it.each([
    '',
    '-main',
    '--upload-pack=x',
    'a..b',
    'a b',
    'a\tb',
    'a\u0001b',
    'a:b',
    'a~1',
    'a^',
    'a?',
    'a*',
    'a[b',
    'a\\b',
    'a@{1}',
    '/main',
    'main/',
    'a//b',
    'main.lock',
    'main.',
    '.hidden',
    'x/.y',
  ])('refuses %j', (ref) => {
    expect(codeOf(() => validateRef(ref))).toBe('INVALID_REF');
  });
});

describe('normalizePaths', () => {
  it('normalises, keeps the folder mark and dedupes', () => {
    expect(normalizePaths(['./docs/', 'docs/', 'README.md', './README.md', 'src//lib.rs', 'a/./b', 'examples'])).toEqual([
      'docs/',
      'README.md',
      'src/lib.rs',
      'a/b',
      'examples',
    ]);
  });

  it('keeps glob characters as literal names', () => {
    expect(normalizePaths(['app/[id]/page.tsx'])).toEqual(['app/[id]/page.tsx']);
  });

  it.each(['/etc/passwd', '../x', 'docs/../../x', 'a/..', 'a\u0000b', 'a\\b', '-x', './-x', '', '.', './', 'a\nb'])(
    'refuses %j',
    (p) => {
      expect(codeOf(() => normalizePaths([p]))).toBe('INVALID_PATH');
    },
  );

  it('never yields absolute paths, ".." segments or backslashes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', '.', '/', '-', '\\', ' ', 'b') }), { maxLength: 5 }), (paths) => {
        let out: string[];
        try {
          out = normalizePaths(paths);
        } catch (err) {
          expect((err as TkomaError).code).toBe('INVALID_PATH');
          return;
        }
        for (const p of out) {
          expect(p.startsWith('/')).toBe(false);
          expect(p.startsWith('-')).toBe(false);
          expect(p.split('/')).not.toContain('..');
          expect(p).not.toContain('\\');
          expect(p.length).toBeGreaterThan(0);
        }
        expect(new Set(out).size).toBe(out.length);
      }),
    );
  });
});

describe('repoDisplayName and githubRepo', () => {
  it.each([
    ['https://github.com/DioxusLabs/dioxus', 'DioxusLabs/dioxus'],
    ['https://github.com/DioxusLabs/dioxus.git', 'DioxusLabs/dioxus'],
    ['git@github.com:DioxusLabs/dioxus.git', 'DioxusLabs/dioxus'],
    ['ssh://git@gitlab.example.org/group/sub/repo.git', 'sub/repo'],
    ['https://user:secret@git.example.com/team/tool', 'team/tool'],
    ['file:///srv/git/mirror/tool.git', 'tool'],
    ['file:///tmp/x/demo', 'demo'],
  ])('%s → %s', (url, name) => {
    expect(repoDisplayName(url)).toBe(name);
  });

  it.each([
    // What an approval names: the whole URL, credentials redacted; a local path marked as one.
    ['https://github.com/DioxusLabs/dioxus', 'https://github.com/DioxusLabs/dioxus'],
    ['https://user:secret@git.example.com/team/tool', 'https://***@git.example.com/team/tool'],
    ['git@github.com:DioxusLabs/dioxus.git', 'git@github.com:DioxusLabs/dioxus.git'],
    ['file:///home/me/.password-store', 'local repository /home/me/.password-store'],
    ['file:///srv/x/.git', 'local repository /srv/x/.git'],
    ['file:///srv/my%20repo/', 'local repository /srv/my repo'],
  ])('approval label %s → %s', (url, label) => {
    expect(gitSourceLabel(url)).toBe(label);
  });

  it('recognises github.com repositories only', () => {
    expect(githubRepo('https://github.com/DioxusLabs/dioxus.git')).toEqual({ owner: 'DioxusLabs', repo: 'dioxus' });
    expect(githubRepo('git@github.com:o/r')).toEqual({ owner: 'o', repo: 'r' });
    expect(githubRepo('https://gitlab.com/o/r')).toBeNull();
    expect(githubRepo('https://github.com/o/r/tree/main')).toBeNull();
    expect(githubRepo('file:///github.com/o/r')).toBeNull();
  });
});

describe('isFullCommitSha', () => {
  it('accepts 40 and 64 hex digits only', () => {
    expect(isFullCommitSha('a'.repeat(40))).toBe(true);
    expect(isFullCommitSha('0123456789ABCDEF'.repeat(4))).toBe(true);
    expect(isFullCommitSha('a'.repeat(39))).toBe(false);
    expect(isFullCommitSha('a'.repeat(41))).toBe(false);
    expect(isFullCommitSha('g'.repeat(40))).toBe(false);
    expect(isFullCommitSha('main')).toBe(false);
  });
});
