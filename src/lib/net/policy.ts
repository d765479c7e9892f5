/**
 * The network policy every fetch obeys (web pages, their redirects, git over http(s) and ssh,
 * later crawls and package downloads): public addresses only, unless the operator's allow list in
 * `tkoma-ref.toml` (`[network] allow`) opens a host, a host:port or a subnet. Loopback, private
 * (RFC 1918), shared (CGNAT), unique-local, link-local (where cloud metadata services live),
 * unspecified, multicast and reserved addresses are refused, IPv4-mapped and NAT64/6to4 forms
 * judged by the IPv4 address they carry.
 *
 * The check is on the address actually connected to: names are resolved once, here, and the
 * connection goes to that checked address (see `policedLookup` and src/lib/net/http.ts), so a
 * name that answers differently the second time (DNS rebinding) gains nothing.
 *
 * Node's own `net.BlockList` does the subnet arithmetic (it also matches IPv4-mapped IPv6
 * addresses against IPv4 rules); no dependency needed.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

import { TkomaError } from '../errors.js';

export interface AllowEntry {
  /** As the operator wrote it, for messages. */
  text: string;
  /** A lower-case host name or a canonical IP literal (no brackets); absent for a subnet. */
  host?: string;
  port?: number;
  /** `10.0.0.0/8`, `fd00::/8`: every address inside. */
  subnet?: BlockList;
}

export interface SourcePolicy {
  /** `[network] allow`: what may be reached although it is not public. */
  allow: readonly AllowEntry[];
  /** `[sources] local_roots`: folders under which file:// git sources may be read (real paths). */
  localRoots: readonly string[];
}

/** Nothing but public addresses, no local repositories: the policy of a root that says nothing. */
export const DEFAULT_POLICY: SourcePolicy = Object.freeze({ allow: [], localRoots: [] });

export const ALLOW_SETTING = '[network] allow';

/** Resolves a host name to every address it has (dns.lookup's shape, `all: true`). Tests inject one. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

type Family = 'ipv4' | 'ipv6';

/** Address ranges that are not the public internet, by what they are. */
const RANGES: readonly [string, number, Family, string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['192.0.2.0', 24, 'ipv4', 'reserved'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'reserved'],
  ['198.51.100.0', 24, 'ipv4', 'reserved'],
  ['203.0.113.0', 24, 'ipv4', 'reserved'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  // IPv4-compatible (deprecated) and the rest of ::/96.
  ['::', 96, 'ipv6', 'reserved'],
  ['100::', 64, 'ipv6', 'reserved'],
  ['2001::', 32, 'ipv6', 'reserved'], // Teredo: a tunnel, never a documentation server
  ['2001:db8::', 32, 'ipv6', 'reserved'],
  ['fc00::', 7, 'ipv6', 'unique-local'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

let rangeLists: { list: BlockList; kind: string }[] | null = null;

function ranges(): { list: BlockList; kind: string }[] {
  if (rangeLists) return rangeLists;
  rangeLists = RANGES.map(([net, prefix, family, kind]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, kind };
  });
  return rangeLists;
}

/** The eight 16-bit groups of an IPv6 literal (valid input assumed: isIP said 6). */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

/** The IPv4 address an IPv6 one carries by NAT64 (64:ff9b::/96) or 6to4 (2002::/16), if any. */
function embeddedIpv4(ip: string): string | null {
  const g = ipv6Groups(ip);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return quad(g[6]!, g[7]!);
  if (g[0] === 0x2002) return quad(g[1]!, g[2]!);
  return null;
}

/**
 * What kind of non-public address `ip` is (`loopback`, `private`, `link-local`…), or null for a
 * public one. Not an IP literal: `not an address`. Pure.
 */
export function addressKind(ip: string): string | null {
  const bare = ip.replace(/^\[|\]$/g, '');
  const version = isIP(bare);
  if (version === 0) return 'not an address';
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  for (const { list, kind } of ranges()) if (list.check(bare, family)) return kind;
  if (version === 6) {
    const inner = embeddedIpv4(bare);
    if (inner !== null) return addressKind(inner);
  }
  return null;
}

/** Host names compare lower-case, without brackets or a final dot; IP literals in canonical form. */
export function normalizeHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (isIP(bare) === 6) {
    try {
      return new URL(`http://[${bare}]/`).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return bare;
    }
  }
  return bare;
}

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

function badEntry(text: unknown, why: string, where: string): TkomaError {
  return new TkomaError('INVALID_INPUT', `${where}: "${String(text)}" ${why} (give a host, host:port, [IPv6]:port or a subnet like 10.0.0.0/8)`, {
    setting: where,
    entry: String(text),
  });
}

/** One `[network] allow` entry: `host`, `host:port`, `[v6]`, `[v6]:port`, a bare IPv6 literal, or `net/prefix`. */
export function parseAllowEntry(raw: unknown, where = ALLOW_SETTING): AllowEntry {
  if (typeof raw !== 'string' || raw.trim() === '') throw badEntry(raw, 'is not a host', where);
  const text = raw.trim();
  const cidr = /^([^/\s]+)\/(\d{1,3})$/.exec(text);
  if (cidr) {
    const net = normalizeHost(cidr[1]!);
    const version = isIP(net);
    const prefix = Number(cidr[2]);
    if (version === 0 || prefix > (version === 4 ? 32 : 128)) throw badEntry(raw, 'is not a subnet', where);
    const subnet = new BlockList();
    subnet.addSubnet(net, prefix, version === 4 ? 'ipv4' : 'ipv6');
    return { text, subnet };
  }
  let host = text;
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const hostPort = /^([^:[\]]+):(\d+)$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    if (bracketed[2] !== undefined) port = Number(bracketed[2]);
    if (isIP(host) !== 6) throw badEntry(raw, 'is not an IPv6 address in brackets', where);
  } else if (hostPort) {
    host = hostPort[1]!;
    port = Number(hostPort[2]);
  }
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) throw badEntry(raw, 'has a port outside 1-65535', where);
  host = normalizeHost(host);
  if (isIP(host) === 0 && !HOST_NAME.test(host)) throw badEntry(raw, 'is not a host name or address', where);
  return { text, host, ...(port !== undefined ? { port } : {}) };
}

/** `[network] allow` as read from tkoma-ref.toml (absent: nothing extra allowed). */
export function parseAllowList(value: unknown, where = ALLOW_SETTING): AllowEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TkomaError('INVALID_INPUT', `${where} must be a list of hosts, e.g. ["127.0.0.1:8080", "docs.internal.example"]`, { setting: where });
  return value.map((v) => parseAllowEntry(v, where));
}

/** Whether an allow entry opens (`host` as named in the URL, `port`, `address` connected to). */
function entryMatches(entry: AllowEntry, host: string, port: number, address: string): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  if (entry.subnet) return entry.subnet.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  return entry.host === host || entry.host === address;
}

/**
 * Why connecting to `address` for `host:port` breaks the policy, or null when it may go ahead.
 * Public addresses always may; others only when an allow entry names the host, the address or
 * its subnet (with the port, when the entry gives one). Pure.
 */
export function refusal(policy: SourcePolicy, host: string, port: number, address: string): string | null {
  const kind = addressKind(address);
  if (kind === null) return null;
  const h = normalizeHost(host);
  const a = normalizeHost(address);
  if (policy.allow.some((e) => entryMatches(e, h, port, a))) return null;
  const shown = h === a ? (isIP(a) === 6 ? `[${a}]` : a) : `${h} (${a})`;
  return `${shown}:${port} is a ${kind} address, and ${ALLOW_SETTING} in tkoma-ref.toml does not list it`;
}

/** The NOT_ALLOWED error for a refused connection. */
export function notAllowed(url: string, why: string): TkomaError {
  return new TkomaError('NOT_ALLOWED', `not allowed by the network policy: ${url}: ${why}`, { url, setting: ALLOW_SETTING, reason: why });
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol === 'ssh:' ? 22 : 80;
}

/**
 * Resolves `host` once and checks every address it has (one refused address refuses the name: a
 * name that mixes public and private answers is a trap, not a mirror). IP literals are checked
 * without a lookup. Returns the checked addresses to connect to; NOT_ALLOWED otherwise.
 */
export async function resolveAllowed(policy: SourcePolicy, host: string, port: number, shownUrl: string, resolver: Resolver = systemResolver): Promise<LookupAddress[]> {
  const bare = normalizeHost(host);
  const version = isIP(bare);
  const addresses: LookupAddress[] = version !== 0 ? [{ address: bare, family: version }] : await resolver(bare);
  if (addresses.length === 0) throw new TkomaError('SOURCE_UNREACHABLE', `Cannot reach ${shownUrl}: ${bare} has no address`, { url: shownUrl });
  for (const a of addresses) {
    const why = refusal(policy, bare, port, a.address);
    if (why) throw notAllowed(shownUrl, why);
  }
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/http/https connections that resolves through `resolver` and hands the
 * socket only addresses the policy allows: the connection goes to the address that was checked.
 * `onRefused` receives the NOT_ALLOWED error (the socket's error may arrive wrapped).
 */
export function policedLookup(
  policy: SourcePolicy,
  port: number,
  shownUrl: string,
  opts: { resolver?: Resolver; onRefused?: (err: TkomaError) => void } = {},
): (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    resolveAllowed(policy, hostname, port, shownUrl, opts.resolver).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: unknown) => {
        if (err instanceof TkomaError && err.code === 'NOT_ALLOWED') opts.onRefused?.(err);
        callback(err as NodeJS.ErrnoException, '', 0);
      },
    );
  };
}

/** The policy's view of a host name without resolving it (phase 1: no DNS, no traffic). */
export function literalRefusal(policy: SourcePolicy, host: string, port: number): string | null {
  const bare = normalizeHost(host);
  if (bare === 'localhost' || bare.endsWith('.localhost')) return refusal(policy, bare, port, '127.0.0.1');
  return isIP(bare) === 0 ? null : refusal(policy, bare, port, bare);
}
