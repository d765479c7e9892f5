import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

import { matchesIntegrity, publishedIntegrity } from '../../src/lib/sources/npm/npm.js';
import { authorizationFor, envNpmConfig, mergeNpmConfig, parseNpmrc, registryFor } from '../../src/lib/sources/npm/npmrc.js';
import { packumentUrl, parsePackument, repositoryUrl } from '../../src/lib/sources/npm/registry.js';
import { readTarball } from '../../src/lib/sources/npm/tarball.js';
import { tagsOf } from '../../src/lib/sources/git-version.js';
import { compareVersions, pickTag, pickVersion, satisfiesSpec, versionSpecKind } from '../../src/lib/sources/versions.js';
import { makeTgz } from '../helpers/tar.js';

describe('version specs', () => {
  it('tells exact versions, ranges and dist-tags apart', () => {
    expect(versionSpecKind('3.23.8')).toBe('exact');
    expect(versionSpecKind('v1.2.3')).toBe('exact');
    expect(versionSpecKind('^3.23')).toBe('range');
    expect(versionSpecKind('>=1 <2')).toBe('range');
    expect(versionSpecKind('3.x')).toBe('range');
    expect(versionSpecKind('latest')).toBe('tag');
    expect(versionSpecKind('next')).toBe('tag');
    expect(versionSpecKind('')).toBeNull();
    expect(versionSpecKind('http://x')).toBeNull();
    expect(versionSpecKind('^^1')).toBeNull();
  });

  it('picks the version npm would install', () => {
    const versions = ['1.0.0', '1.1.0', '1.2.0-beta.1', '2.0.0', '2.1.0'];
    const tags = { latest: '2.0.0', beta: '1.2.0-beta.1' };
    expect(pickVersion(versions, tags, '^1')).toBe('1.1.0');
    // latest satisfies the range: npm prefers it over a higher match
    expect(pickVersion(versions, tags, '^2')).toBe('2.0.0');
    expect(pickVersion(versions, tags, '>=2.1')).toBe('2.1.0');
    expect(pickVersion(versions, tags, 'beta')).toBe('1.2.0-beta.1');
    expect(pickVersion(versions, tags, 'latest')).toBe('2.0.0');
    expect(pickVersion(versions, tags, '1.0.0')).toBe('1.0.0');
    expect(pickVersion(versions, tags, '3.0.0')).toBeNull();
    expect(pickVersion(versions, tags, 'nightly')).toBeNull();
    expect(pickVersion(versions, tags, '^3')).toBeNull();
  });

  it('picks the newest matching tag, v-prefixed or not', () => {
    const tags = ['v0.5.9', 'v0.6.0', 'v0.6.2', '0.6.1', 'v0.7.0-rc.1', 'v1.0.0', 'release-2', 'nightly'];
    expect(pickTag(tags, '^0.6')).toBe('v0.6.2');
    expect(pickTag(tags, '~0.6.1')).toBe('v0.6.2');
    expect(pickTag(tags, '0.6.1')).toBe('0.6.1');
    expect(pickTag(tags, '*')).toBe('v1.0.0');
    expect(pickTag(tags, '^2')).toBeNull();
    expect(pickTag(tags, 'latest')).toBeNull();
    expect(pickTag(['1.0.0', 'v1.0.0'], '1.0.0')).toBe('v1.0.0');
  });

  it('compares versions across spellings', () => {
    expect(compareVersions('3.23.8', '3.24.1')).toBe(-1);
    expect(compareVersions('v0.6.2', '0.6.2')).toBe(0);
    expect(compareVersions('1.10.0', '1.9.0')).toBe(1);
    expect(compareVersions('abc', '1.0.0')).toBeNull();
    expect(satisfiesSpec('v0.6.2', '^0.6')).toBe(true);
    expect(satisfiesSpec('0.7.0', '^0.6')).toBe(false);
    expect(satisfiesSpec('1.0.0', 'latest')).toBeNull();
  });

  it('reads tags from ls-remote refs, annotated tags peeled', () => {
    const refs = new Map([
      ['refs/tags/v1.0.0', 'a'.repeat(40)],
      ['refs/tags/v1.0.0^{}', 'b'.repeat(40)],
      ['refs/tags/v0.9.0', 'c'.repeat(40)],
      ['refs/heads/main', 'd'.repeat(40)],
    ]);
    expect([...tagsOf(refs)]).toEqual([
      ['v1.0.0', 'b'.repeat(40)],
      ['v0.9.0', 'c'.repeat(40)],
    ]);
  });
});

describe('.npmrc', () => {
  it('parses keys, comments, quotes and ${VAR}', () => {
    const text = ['; comment', '# comment', 'registry = "https://r.example/npm/"', '@acme:registry=https://acme.example/', '//acme.example/:_authToken=${ACME_TOKEN}', 'bad line'].join('\n');
    expect(parseNpmrc(text, { ACME_TOKEN: 's3cret' })).toEqual({
      registry: 'https://r.example/npm/',
      '@acme:registry': 'https://acme.example/',
      '//acme.example/:_authToken': 's3cret',
    });
  });

  it('environment over project over user; scopes route; default registry', () => {
    const env = envNpmConfig({ npm_config_registry: 'https://env.example', NPM_CONFIG_USERCONFIG: '/x/.npmrc', PATH: '/bin' });
    expect(env).toEqual({ registry: 'https://env.example', userconfig: '/x/.npmrc' });
    const cfg = mergeNpmConfig([env, { registry: 'https://project.example/', '@acme:registry': 'https://acme.example' }, { registry: 'https://user.example/' }]);
    expect(cfg.registry).toBe('https://env.example/');
    expect(registryFor(cfg, 'zod')).toBe('https://env.example/');
    expect(registryFor(cfg, '@acme/widgets')).toBe('https://acme.example/');
    expect(registryFor(cfg, '@other/x')).toBe('https://env.example/');
    expect(mergeNpmConfig([]).registry).toBe('https://registry.npmjs.org/');
  });

  it('sends a token only to the URLs it is keyed to, longest prefix first', () => {
    const cfg = mergeNpmConfig([
      {
        '//acme.example/:_authToken': 'host-token',
        '//acme.example/npm/private/:_authToken': 'path-token',
        '//basic.example/:username': 'me',
        '//basic.example/:_password': Buffer.from('pw').toString('base64'),
      },
    ]);
    expect(authorizationFor(cfg, 'https://acme.example/npm/private/pkg')).toBe('Bearer path-token');
    expect(authorizationFor(cfg, 'https://acme.example/npm/other/pkg')).toBe('Bearer host-token');
    expect(authorizationFor(cfg, 'https://acme.example:8443/pkg')).toBeUndefined();
    expect(authorizationFor(cfg, 'https://evil.example/acme.example/pkg')).toBeUndefined();
    expect(authorizationFor(cfg, 'https://basic.example/x.tgz')).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`);
  });
});

describe('registry documents', () => {
  it('escapes scoped names and reads versions, tags and dist', () => {
    expect(packumentUrl('https://r.example/', '@acme/widgets')).toBe('https://r.example/@acme%2fwidgets');
    const doc = {
      name: 'x',
      'dist-tags': { latest: '1.0.0' },
      versions: { '1.0.0': { dist: { tarball: 'https://r/x-1.0.0.tgz', integrity: 'sha512-abc', fileCount: 3, unpackedSize: 120 }, gitHead: 'f'.repeat(40) }, broken: {} },
    };
    const p = parsePackument(JSON.stringify(doc), 'u');
    expect(p.distTags).toEqual({ latest: '1.0.0' });
    expect([...p.versions.keys()]).toEqual(['1.0.0']);
    expect(p.versions.get('1.0.0')!.dist.fileCount).toBe(3);
    expect(() => parsePackument('<html>', 'u')).toThrow(/not an npm package document/);
  });

  it('turns every repository spelling into an https URL', () => {
    expect(repositoryUrl({ type: 'git', url: 'git+https://github.com/colinhacks/zod.git' })).toBe('https://github.com/colinhacks/zod');
    expect(repositoryUrl('git://github.com/a/b.git')).toBe('https://github.com/a/b');
    expect(repositoryUrl('git@github.com:a/b.git')).toBe('https://github.com/a/b');
    expect(repositoryUrl('git+ssh://git@gitlab.com/a/b.git')).toBe('https://gitlab.com/a/b');
    expect(repositoryUrl('github:a/b')).toBe('https://github.com/a/b');
    expect(repositoryUrl('gitlab:a/b')).toBe('https://gitlab.com/a/b');
    expect(repositoryUrl('a/b')).toBe('https://github.com/a/b');
    expect(repositoryUrl(undefined)).toBeNull();
    expect(repositoryUrl({ url: 'file:///x' })).toBeNull();
  });

  it('checks integrity: sha512 first, sha1 from shasum only when nothing stronger', () => {
    const data = Buffer.from('tarball bytes');
    const sha512 = `sha512-${createHash('sha512').update(data).digest('base64')}`;
    const sha1hex = createHash('sha1').update(data).digest('hex');
    expect(publishedIntegrity({ tarball: 't', integrity: `sha1-xyz ${sha512}`, shasum: sha1hex })).toBe(sha512);
    expect(publishedIntegrity({ tarball: 't', shasum: sha1hex })).toBe(`sha1-${Buffer.from(sha1hex, 'hex').toString('base64')}`);
    expect(publishedIntegrity({ tarball: 't' })).toBeNull();
    expect(matchesIntegrity(data, sha512)).toBe(true);
    expect(matchesIntegrity(Buffer.from('other bytes'), sha512)).toBe(false);
    expect(matchesIntegrity(data, publishedIntegrity({ tarball: 't', shasum: sha1hex })!)).toBe(true);
    expect(matchesIntegrity(data, 'md5-abc')).toBe(false);
  });
});

describe('tarball reader', () => {
  it('keeps regular files without the first component; links, devices and escapes are skipped', () => {
    const tgz = makeTgz([
      { name: 'package/', type: '5' },
      { name: 'package/package.json', data: '{"name":"x"}' },
      { name: 'package/lib/index.js', data: 'export const x = 1;\n' },
      { name: 'package/link.js', type: '2', linkname: '/etc/passwd' },
      { name: 'package/hard.js', type: '1', linkname: 'package/lib/index.js' },
      { name: 'package/fifo', type: '6' },
      { name: 'package/../../escape.js', data: 'nope' },
      { name: 'ignored', type: 'x', data: `package/${'deep/'.repeat(30)}long-name.md` },
      { name: 'package/short', data: '# long\n' },
    ]);
    const out = readTarball(tgz, 1 << 20);
    expect(out.files.map((f) => f.path)).toEqual([`${'deep/'.repeat(30)}long-name.md`, 'lib/index.js', 'package.json']);
    expect(out.files.find((f) => f.path === 'lib/index.js')!.data.toString()).toBe('export const x = 1;\n');
    expect(out.skipped.map((s) => [s.path, s.reason])).toEqual([
      ['link.js', 'symlink'],
      ['hard.js', 'symlink'],
      ['fifo', 'special_file'],
      ['../../escape.js', 'unsafe_path'],
    ]);
  });

  it('refuses a tarball that unpacks past the cap, and one that is not a tarball', () => {
    const bomb = makeTgz([{ name: 'package/zeros.txt', data: Buffer.alloc(4 << 20) }]);
    expect(() => readTarball(bomb, 1 << 20)).toThrow(/unpacks to more than/);
    expect(() => readTarball(Buffer.from('not gzip'), 1 << 20)).toThrow(/not a valid \.tgz/);
    const garbage = gzipSync(Buffer.concat([Buffer.from('x'.repeat(512))]));
    expect(() => readTarball(garbage, 1 << 20)).toThrow(/checksum/);
  });
});
