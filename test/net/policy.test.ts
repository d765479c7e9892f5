import { describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { addressKind, DEFAULT_POLICY, literalRefusal, parseAllowEntry, parseAllowList, refusal, resolveAllowed, type SourcePolicy } from '../../src/lib/net/policy.js';

const policy = (allow: string[]): SourcePolicy => ({ allow: parseAllowList(allow), localRoots: [] });

describe('addressKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.254', 'shared (CGNAT)'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'unique-local'],
    ['fc12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:0a00:0001::1', 'private'],
    ['fd00:ec2::254', 'unique-local'],
    ['not-an-ip', 'not an address'],
  ])('%s is %s', (ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
  });

  it.each(['8.8.8.8', '172.32.0.1', '100.128.0.1', '93.184.216.34', '2606:4700::1111', '64:ff9b::8.8.8.8', '::ffff:8.8.8.8'])('%s is public', (ip) => {
    expect(addressKind(ip)).toBeNull();
  });
});

describe('[network] allow entries', () => {
  it('reads hosts, host:port, IPv6 with and without brackets, and subnets', () => {
    expect(parseAllowEntry('127.0.0.1')).toMatchObject({ host: '127.0.0.1' });
    expect(parseAllowEntry('127.0.0.1:8080')).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(parseAllowEntry('Docs.Internal.Example.')).toMatchObject({ host: 'docs.internal.example' });
    expect(parseAllowEntry('docs.internal.example:443')).toMatchObject({ host: 'docs.internal.example', port: 443 });
    expect(parseAllowEntry('[::1]:9000')).toMatchObject({ host: '::1', port: 9000 });
    expect(parseAllowEntry('[0:0::1]')).toMatchObject({ host: '::1' });
    expect(parseAllowEntry('::1')).toMatchObject({ host: '::1' });
    expect(parseAllowEntry('10.0.0.0/8').subnet).toBeDefined();
  });

  it.each(['', 'http://x', 'a b', 'host:0', 'host:70000', '[nothost]:80', '10.0.0.0/40', 'x/8', 42])('refuses %j with INVALID_INPUT naming the setting', (raw) => {
    const err = (() => {
      try {
        parseAllowEntry(raw);
      } catch (e) {
        return e as TkomaError;
      }
      throw new Error('expected a refusal');
    })();
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toContain('[network] allow');
  });

  it('must be a list', () => {
    expect(() => parseAllowList('127.0.0.1')).toThrow(/must be a list/);
    expect(parseAllowList(undefined)).toEqual([]);
  });
});

describe('refusal', () => {
  it('lets public addresses through, refuses the rest unless the allow list opens them', () => {
    expect(refusal(DEFAULT_POLICY, 'example.org', 443, '93.184.216.34')).toBeNull();
    expect(refusal(DEFAULT_POLICY, '127.0.0.1', 80, '127.0.0.1')).toMatch(/127\.0\.0\.1:80 is a loopback address.*\[network\] allow/);
    expect(refusal(DEFAULT_POLICY, 'metadata.internal', 80, '169.254.169.254')).toMatch(/metadata\.internal \(169\.254\.169\.254\):80 is a link-local address/);
    expect(refusal(policy(['127.0.0.1']), 'localhost', 8080, '127.0.0.1')).toBeNull();
    expect(refusal(policy(['127.0.0.1']), '10.0.0.5', 80, '10.0.0.5')).not.toBeNull();
    // An entry with a port opens that port only.
    expect(refusal(policy(['127.0.0.1:8080']), '127.0.0.1', 8080, '127.0.0.1')).toBeNull();
    expect(refusal(policy(['127.0.0.1:8080']), '127.0.0.1', 8081, '127.0.0.1')).not.toBeNull();
    // A name opens whatever it resolves to; another name resolving there stays refused.
    expect(refusal(policy(['docs.internal.example']), 'docs.internal.example', 443, '10.1.1.1')).toBeNull();
    expect(refusal(policy(['docs.internal.example']), 'evil.example', 443, '10.1.1.1')).not.toBeNull();
    expect(refusal(policy(['10.0.0.0/8']), 'x.internal', 80, '10.9.9.9')).toBeNull();
    expect(refusal(policy(['10.0.0.0/8']), 'x.internal', 80, '192.168.0.1')).not.toBeNull();
    expect(refusal(policy(['::1']), '::1', 80, '::1')).toBeNull();
    expect(refusal(policy(['[::1]:9']), '[::1]', 9, '0:0:0:0:0:0:0:1')).toBeNull();
  });

  it('judges names only when they are addresses or localhost (no DNS before approval)', () => {
    expect(literalRefusal(DEFAULT_POLICY, 'localhost', 80)).not.toBeNull();
    expect(literalRefusal(DEFAULT_POLICY, 'a.localhost', 80)).not.toBeNull();
    expect(literalRefusal(DEFAULT_POLICY, '[::1]', 80)).not.toBeNull();
    expect(literalRefusal(DEFAULT_POLICY, 'docs.example.org', 80)).toBeNull();
    expect(literalRefusal(policy(['localhost']), 'localhost', 80)).toBeNull();
  });
});

describe('resolveAllowed', () => {
  it('refuses a name when any of its addresses is refused, and checks literals without resolving', async () => {
    let asked = 0;
    const mixed = async () => {
      asked++;
      return [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ];
    };
    const err = await resolveAllowed(DEFAULT_POLICY, 'mixed.example', 443, 'https://mixed.example/', mixed).catch((e: TkomaError) => e);
    expect((err as TkomaError).code).toBe('NOT_ALLOWED');
    expect(asked).toBe(1);
    const never = async (): Promise<never> => {
      throw new Error('a literal must not be resolved');
    };
    await expect(resolveAllowed(DEFAULT_POLICY, '10.0.0.1', 80, 'http://10.0.0.1/', never)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });
    await expect(resolveAllowed(policy(['10.0.0.1']), '10.0.0.1', 80, 'http://10.0.0.1/', never)).resolves.toEqual([{ address: '10.0.0.1', family: 4 }]);
  });
});
