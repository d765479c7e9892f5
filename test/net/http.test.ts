/**
 * Policed requests against real servers on 127.0.0.1 and [::1]. Every other address in these
 * tests (10.x, 169.254.x) is refused before a connection is made: no traffic leaves the machine.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { TkomaError } from '../../src/lib/errors.js';
import { policedRequest } from '../../src/lib/net/http.js';
import { DEFAULT_POLICY, parseAllowList, type Resolver, type SourcePolicy } from '../../src/lib/net/policy.js';
import { fetchWebPage } from '../../src/lib/sources/web.js';
import { gitRemoteArgs } from '../../src/lib/sources/git-policy.js';
import { startServer, type TestServer } from '../helpers/http-server.js';

const policy = (allow: string[]): SourcePolicy => ({ allow: parseAllowList(allow), localRoots: [] });

/** A resolver stub: names of our choosing resolve to 127.0.0.1 (no hosts file, no DNS). */
function stubResolver(names: Record<string, string>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (host: string) => {
    asked.push(host);
    const address = names[host];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return Object.assign(fn, { asked });
}

const failure = (p: Promise<unknown>) => p.then(
  () => {
    throw new Error('expected a refusal');
  },
  (e: TkomaError) => e,
);

describe('policed HTTP', () => {
  let srv: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    srv = await startServer();
    other = await startServer();
    srv.route('/page', (req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'x-host': req.headers.host ?? '' }).end('hello'));
    other.route('/secret', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('internal'));
  });
  afterAll(async () => {
    await srv.close();
    await other.close();
  });

  it('refuses 127.0.0.1 by default and sends nothing; the allow list opens it', async () => {
    const before = srv.seen.length;
    const err = await failure(policedRequest(new URL(srv.url('/page')), {}, { policy: DEFAULT_POLICY }));
    expect(err.code).toBe('NOT_ALLOWED');
    expect(err.message).toMatch(/loopback.*\[network\] allow/);
    expect(srv.seen.length).toBe(before);
    const ok = await policedRequest(new URL(srv.url('/page')), {}, { policy: policy(['127.0.0.1']) });
    expect(await ok.response.text()).toBe('hello');
    expect(srv.seen.length).toBe(before + 1);
  });

  it('an allow entry with a port opens that port only', async () => {
    const port = Number(new URL(srv.base).port);
    expect((await policedRequest(new URL(srv.url('/page')), {}, { policy: policy([`127.0.0.1:${port}`]) })).response.status).toBe(200);
    const err = await failure(policedRequest(new URL(other.url('/secret')), {}, { policy: policy([`127.0.0.1:${port}`]) }));
    expect(err.code).toBe('NOT_ALLOWED');
  });

  it('refuses private, link-local and other-port redirect targets unless allowed, before connecting', async () => {
    const port = Number(new URL(srv.base).port);
    srv.route('/to-10', (_q, res) => res.writeHead(302, { location: 'http://10.0.0.1/admin' }).end());
    srv.route('/to-metadata', (_q, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    srv.route('/to-other', (_q, res) => res.writeHead(302, { location: other.url('/secret') }).end());
    const allowed = policy([`127.0.0.1:${port}`]);
    for (const path of ['/to-10', '/to-metadata', '/to-other']) {
      const err = await failure(policedRequest(new URL(srv.url(path)), {}, { policy: allowed }));
      expect(err.code, path).toBe('NOT_ALLOWED');
    }
    expect(other.seen).not.toContain('GET /secret');
    // Allowed hops are followed and recorded.
    const followed = await policedRequest(new URL(srv.url('/to-other')), {}, { policy: policy(['127.0.0.1']) });
    expect(await followed.response.text()).toBe('internal');
    expect(followed.redirects).toEqual([other.url('/secret')]);
  });

  it('checks the address a name resolves to, once, and connects to that address', async () => {
    const resolver = stubResolver({ 'docs.rebind.test': '127.0.0.1' });
    const url = new URL(`http://docs.rebind.test:${new URL(srv.base).port}/page`);
    const err = await failure(policedRequest(url, {}, { policy: DEFAULT_POLICY, resolver }));
    expect(err.code).toBe('NOT_ALLOWED');
    expect(err.message).toContain('docs.rebind.test (127.0.0.1)');
    expect(resolver.asked).toEqual(['docs.rebind.test']);
    // Opened by name: the request reaches the address that was checked, with the name as Host.
    const ok = await policedRequest(url, {}, { policy: policy(['docs.rebind.test']), resolver });
    expect(ok.response.headers.get('x-host')).toBe(`docs.rebind.test:${new URL(srv.base).port}`);
    expect(resolver.asked).toEqual(['docs.rebind.test', 'docs.rebind.test']);
  });

  it('a web source on localhost is refused until allowed, and the refusal redacts credentials in redirects', async () => {
    const port = new URL(srv.base).port;
    const err = await failure(fetchWebPage(`http://localhost:${port}/page`));
    expect(err.code).toBe('NOT_ALLOWED');
    expect((await fetchWebPage(`http://localhost:${port}/page`, { policy: policy(['localhost']) })).markdown).toContain('hello');
    srv.route('/to-creds', (_q, res) => res.writeHead(302, { location: `http://user:s3cret-token@127.0.0.1:${port}/page` }).end());
    const creds = await failure(fetchWebPage(srv.url('/to-creds'), { policy: policy(['127.0.0.1']) }));
    expect(creds.code).toBe('FETCH_FAILED');
    expect(JSON.stringify(creds.toJSON())).not.toContain('s3cret-token');
  });
});

describe('policed HTTP over IPv6 loopback', () => {
  let server: Server;
  let port = 0;
  let seen = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      seen++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('v6');
    });
    await new Promise<void>((r) => server.listen(0, '::1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('[::1] is refused unless allowed', async () => {
    const url = new URL(`http://[::1]:${port}/`);
    expect((await failure(policedRequest(url, {}, { policy: DEFAULT_POLICY }))).code).toBe('NOT_ALLOWED');
    expect((await failure(policedRequest(url, {}, { policy: policy(['127.0.0.1']) }))).code).toBe('NOT_ALLOWED');
    expect(seen).toBe(0);
    const ok = await policedRequest(url, {}, { policy: policy(['[::1]']) });
    expect(await ok.response.text()).toBe('v6');
    expect(seen).toBe(1);
  });
});

describe('git under the policy', () => {
  it('refuses loopback and private remotes by default; allowed http remotes get no redirects and a pinned address', async () => {
    await expect(gitRemoteArgs('http://127.0.0.1:9/repo.git', undefined)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });
    await expect(gitRemoteArgs('https://10.1.2.3/repo.git', undefined)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });
    await expect(gitRemoteArgs('ssh://git@169.254.169.254/repo.git', undefined)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });
    expect(await gitRemoteArgs('http://127.0.0.1:9/repo.git', policy(['127.0.0.1']))).toEqual(['-c', 'http.followRedirects=false']);
    const resolver = stubResolver({ 'git.rebind.test': '127.0.0.1' });
    await expect(gitRemoteArgs('https://git.rebind.test/r.git', DEFAULT_POLICY, resolver)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });
    expect(await gitRemoteArgs('https://git.rebind.test/r.git', policy(['git.rebind.test']), resolver)).toEqual([
      '-c',
      'http.followRedirects=false',
      '-c',
      'http.curloptResolve=git.rebind.test:443:127.0.0.1',
    ]);
  });

  it('credentials in a refused git URL never reach the error', async () => {
    const err = (await gitRemoteArgs('https://user:ghp_secret@10.0.0.1/r.git', undefined).catch((e) => e)) as TkomaError;
    expect(err.code).toBe('NOT_ALLOWED');
    expect(JSON.stringify(err.toJSON())).not.toContain('ghp_secret');
  });
});
