import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import { fetchGitSource, probeGitSource, remoteCommit, type GitSourceSpec } from '../../src/lib/sources/git.js';
import { GitFailure, runGit } from '../../src/lib/sources/git-run.js';
import { makeFixture, type Fixture } from '../helpers/git-repos.js';
import { LOCAL_POLICY } from '../helpers/http-server.js';

async function errorOf(p: Promise<unknown>): Promise<TkomaError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError);
    return err as TkomaError;
  }
  throw new Error('expected a TkomaError');
}

let work: string;
let marker: string;
let fx: Fixture;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'tkoma-git-safety-'));
  marker = join(work, 'pwned');
  fx = makeFixture();
});
afterAll(() => {
  fx.cleanup();
  rmSync(work, { recursive: true, force: true });
});

describe('inputs are refused before git runs', () => {
  const savedPath = process.env.PATH;
  // With no git on PATH any git call would fail with GIT_UNAVAILABLE; getting the validation
  // error instead proves validation happened first.
  const withoutGit = async <T>(fn: () => Promise<T>): Promise<T> => {
    process.env.PATH = join(work, 'empty-bin');
    try {
      return await fn();
    } finally {
      process.env.PATH = savedPath;
    }
  };
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  it('sees GIT_UNAVAILABLE when git is missing (the check below relies on it)', async () => {
    const err = await withoutGit(() => errorOf(probeGitSource({ url: fx.url })));
    expect(err.code).toBe('GIT_UNAVAILABLE');
  });

  const cases: [string, GitSourceSpec, string][] = [
    ['ext:: transport', { url: `ext::sh -c touch% ${'/tmp/x'}` }, 'UNSUPPORTED_SCHEME'],
    ['upload-pack option', { url: '--upload-pack=touch /tmp/x' }, 'INVALID_URL'],
    ['ssh option', { url: '-oProxyCommand=touch /tmp/x' }, 'INVALID_URL'],
    ['ssh option as host', { url: 'ssh://-oProxyCommand=touch%20x/repo' }, 'INVALID_URL'],
    ['option as ref', { url: 'https://example.com/a/b.git', ref: '--upload-pack=touch' }, 'INVALID_REF'],
    ['ref with ..', { url: 'https://example.com/a/b.git', ref: 'main..dev' }, 'INVALID_REF'],
    ['absolute path', { url: 'https://example.com/a/b.git', paths: ['/etc/passwd'] }, 'INVALID_PATH'],
    ['parent path', { url: 'https://example.com/a/b.git', paths: ['docs/../../x'] }, 'INVALID_PATH'],
    ['option as path', { url: 'https://example.com/a/b.git', paths: ['--output=x'] }, 'INVALID_PATH'],
  ];

  it.each(cases)('%s', async (_name, src, code) => {
    const dest = join(work, 'dest');
    expect((await withoutGit(() => errorOf(probeGitSource(src)))).code).toBe(code);
    expect((await withoutGit(() => errorOf(fetchGitSource(src, dest)))).code).toBe(code);
    if (!src.paths) expect((await withoutGit(() => errorOf(remoteCommit(src)))).code).toBe(code);
    expect(existsSync(dest)).toBe(false);
  });

  it('does not run the ext:: command', async () => {
    const err = await errorOf(probeGitSource({ url: `ext::sh -c touch% ${marker}` }));
    expect(err.code).toBe('UNSUPPORTED_SCHEME');
    expect(existsSync(marker)).toBe(false);
  });

  it('keeps ext:: blocked inside git too, even when the user config allows it', async () => {
    // A hostile configuration under which plain git runs the ext:: command…
    const config = join(work, 'permissive.gitconfig');
    writeFileSync(config, '[protocol]\n\tallow = always\n[protocol "ext"]\n\tallow = always\n');
    const hostile = { ...process.env, GIT_CONFIG_GLOBAL: config, GIT_ALLOW_PROTOCOL: 'ext:file' };
    const control = join(work, 'control');
    try {
      execFileSync('git', ['ls-remote', '--', `ext::sh -c touch% ${control}`], { env: hostile, stdio: 'ignore' });
    } catch {
      /* the command runs, then git fails to talk to it */
    }
    expect(existsSync(control)).toBe(true);
    // …does not reach it through runGit.
    const saved = { ...process.env };
    Object.assign(process.env, { GIT_CONFIG_GLOBAL: config, GIT_ALLOW_PROTOCOL: 'ext:file' });
    try {
      const err = await runGit(['ls-remote', '--', `ext::sh -c touch% ${marker}`], { timeoutMs: 20_000 }).catch((e) => e);
      expect(err).toBeInstanceOf(GitFailure);
      expect((err as GitFailure).stderr).toMatch(/transport 'ext' not allowed/);
      expect(existsSync(marker)).toBe(false);
    } finally {
      for (const k of ['GIT_CONFIG_GLOBAL', 'GIT_ALLOW_PROTOCOL']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('refuses file:// when the caller turns it off', async () => {
    expect((await errorOf(probeGitSource({ url: fx.url }, { allowFile: false }))).code).toBe('UNSUPPORTED_SCHEME');
  });
});

describe('unreachable repositories', () => {
  let silent: Server;
  let silentPort: number;
  let closedPort: number;

  beforeAll(async () => {
    // Accepts connections and never answers: only the timeout can end the call.
    silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as AddressInfo).port;
    const tmp = createServer();
    await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
    closedPort = (tmp.address() as AddressInfo).port;
    await new Promise<void>((r) => tmp.close(() => r()));
  });
  afterAll(() => {
    silent.closeAllConnections();
    return new Promise<void>((r) => silent.close(() => r()));
  });

  it('a missing local repository', async () => {
    const url = `file://${join(work, 'no-such-repo')}`;
    const err = await errorOf(probeGitSource({ url }));
    expect(err.code).toBe('SOURCE_UNREACHABLE');
    expect(err.message).toMatch(/does not appear to be a git repository|not found|Could not read/i);
    expect((await errorOf(fetchGitSource({ url }, join(work, 'd')))).code).toBe('SOURCE_UNREACHABLE');
    expect((await errorOf(remoteCommit({ url }))).code).toBe('SOURCE_UNREACHABLE');
  });

  it('a refused connection, without leaking credentials', async () => {
    const err = await errorOf(probeGitSource({ url: `http://alice:s3cret@127.0.0.1:${closedPort}/repo.git` }, { policy: LOCAL_POLICY }));
    expect(err.code).toBe('SOURCE_UNREACHABLE');
    const shown = JSON.stringify(err.toJSON());
    expect(shown).not.toContain('s3cret');
    expect(shown).toMatch(/Failed to connect|Connection refused|unable to access/i);
  });

  it('an ssh remote that refuses the connection fails without prompting', async () => {
    const err = await errorOf(probeGitSource({ url: `ssh://git@127.0.0.1:${closedPort}/repo.git` }, { timeoutMs: 30_000, policy: LOCAL_POLICY }));
    expect(err.code).toBe('SOURCE_UNREACHABLE');
    expect(err.details.timed_out).toBe(false);
  });

  it('a server that never answers ends at the timeout', async () => {
    const err = await errorOf(remoteCommit({ url: `http://127.0.0.1:${silentPort}/repo.git` }, { timeoutMs: 1500, policy: LOCAL_POLICY }));
    expect(err.code).toBe('SOURCE_UNREACHABLE');
    expect(err.details.timed_out).toBe(true);
  });
});

describe('a local partial clone as the source never reaches its own origin', () => {
  // The source is a blob-less clone whose promisor remote is an HTTP server on this machine that
  // counts requests: any blob git lazily fetched for us would be a request to it, before approval
  // (the probe) and outside the network policy (no address check for a promisor's URL).
  let server: Server;
  let requests = 0;
  let partial: string;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = makeFixture({ allowFilter: true });
    partial = join(work, 'partial');
    execFileSync('git', ['clone', '-q', '--no-checkout', '--filter=blob:none', origin.url, partial], { stdio: 'ignore' });
    origin.cleanup();
    execFileSync('git', ['-C', partial, 'config', 'remote.origin.url', `http://127.0.0.1:${(server.address() as AddressInfo).port}/demo.git`]);
    execFileSync('git', ['-C', partial, 'config', 'uploadpack.allowFilter', 'true']);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('the probe and the fetch ask it nothing; the missing contents are reported, not fetched', async () => {
    const url = `file://${partial}`;
    const probe = await probeGitSource({ url }).catch((e: unknown) => e);
    const fetched = await fetchGitSource({ url }, join(work, 'partial-dest')).catch((e: unknown) => e);
    expect(requests).toBe(0);
    // The probe lists the tree (the clone has it) and knows no sizes; the fetch cannot get the
    // contents and says so, writing nothing.
    expect(probe).toMatchObject({ commit: expect.stringMatching(/^[0-9a-f]{40}$/), file_count: 10, total_bytes: null });
    expect(fetched).toBeInstanceOf(TkomaError);
    expect((fetched as TkomaError).code).toBe('FETCH_FAILED');
    expect(existsSync(join(work, 'partial-dest', 'README.md'))).toBe(false);
  });
});
