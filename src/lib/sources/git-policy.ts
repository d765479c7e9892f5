/**
 * The network policy (src/lib/net/policy.ts) for git. git resolves host names itself, so for
 * http(s) the name is resolved and checked here, then pinned for git's curl with
 * `http.curloptResolve` (git then connects to the address that was checked: no DNS rebinding),
 * and redirects are refused (`http.followRedirects=false`): a redirect could lead anywhere, and
 * git would follow it without asking us. ssh resolves names again on its own, so for ssh the
 * check is made on the name just before git starts. file:// is governed by `[sources] local_roots`.
 */
import { isIP } from 'node:net';

import { DEFAULT_POLICY, portOf, type Resolver, resolveAllowed, type SourcePolicy } from '../net/policy.js';
import { gitUrlScheme, redactUrl } from './git-url.js';
import { assertLocalRepositoryAllowed } from './local-roots.js';

const SCP_HOST = /^(?:[^@/:]+@)([A-Za-z0-9][A-Za-z0-9.-]*):/;

/**
 * The `-c` options that pin git's connection to `url` to a checked address, after checking it;
 * NOT_ALLOWED when the policy refuses. Without a policy (programmatic callers, unit tests),
 * network hosts get the default (public only) and local paths are not checked.
 */
export async function gitRemoteArgs(url: string, policy: SourcePolicy | undefined, resolver?: Resolver): Promise<string[]> {
  const scheme = gitUrlScheme(url);
  if (scheme === 'file') {
    if (policy) assertLocalRepositoryAllowed(policy, url);
    return [];
  }
  const rules = policy ?? DEFAULT_POLICY;
  const shown = redactUrl(url);
  if (scheme === 'ssh') {
    let host: string;
    let port = 22;
    const scp = SCP_HOST.exec(url);
    if (scp) host = scp[1]!;
    else {
      const parsed = new URL(url);
      host = parsed.hostname;
      port = portOf(parsed);
    }
    await resolveAllowed(rules, host, port, shown, resolver);
    return [];
  }
  const parsed = new URL(url);
  const port = portOf(parsed);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const [first] = await resolveAllowed(rules, host, port, shown, resolver);
  const pin = isIP(host) !== 0 ? [] : ['-c', `http.curloptResolve=${host}:${port}:${first!.family === 6 ? `[${first!.address}]` : first!.address}`];
  return ['-c', 'http.followRedirects=false', ...pin];
}
