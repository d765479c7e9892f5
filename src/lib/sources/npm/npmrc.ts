/**
 * The registry npm itself would use, and its credentials, read the way npm reads them: the
 * `npm_config_*` variables first, then the project's `.npmrc` (beside the nearest package.json up
 * from the working folder), then the user's (`npm_config_userconfig` or `~/.npmrc`). Scoped
 * registries (`@scope:registry=`), and tokens keyed by registry URL (`//host/path/:_authToken=`,
 * `_auth`, `username` + `_password`), matched on the longest URL prefix as npm does, so a token is
 * never sent to another host. `${VAR}` in values is expanded from the environment.
 *
 * A small reader rather than npm's own config loader (`@npmcli/config` pulls in a dozen packages
 * and costs a start-up): only these keys matter here. npm's global and built-in config files are
 * not read. Parsing is pure; loadNpmConfig reads the files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

export interface NpmConfig {
  /** The default registry, with a trailing slash. */
  registry: string;
  /** `@scope` → that scope's registry. */
  scopes: Record<string, string>;
  /** Every key read, later layers under earlier ones (`//host/:_authToken`, …). */
  values: Record<string, string>;
  /** The files read, for messages. */
  files: string[];
}

/** `key = value` lines of one .npmrc; `;` and `#` start comments; `${VAR}` expanded from env. */
export function parseNpmrc(text: string, env: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) value = value.slice(1, -1);
    out[expand(key, env)] = expand(value, env);
  }
  return out;
}

function expand(s: string, env: Readonly<Record<string, string | undefined>>): string {
  return s.replace(/(\\*)\$\{([^}]+)\}/g, (all, slashes: string, name: string) => (slashes.length % 2 === 1 ? all.slice(1) : slashes + (env[name] ?? '')));
}

/** `npm_config_registry=…` and friends: npm reads them case-insensitively, as config keys. */
export function envNpmConfig(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || !/^npm_config_/i.test(k)) continue;
    const key = k.slice('npm_config_'.length);
    // npm turns `_` into `-` in variable names, but not in keys that start with `//` or `@`.
    out[/^(\/\/|@)/.test(key) ? key : key.toLowerCase().replace(/_/g, '-')] = v;
  }
  return out;
}

const withSlash = (url: string): string => (url.endsWith('/') ? url : `${url}/`);

/** Merges layers, the first winning (environment, project, user). */
export function mergeNpmConfig(layers: readonly Record<string, string>[], files: string[] = []): NpmConfig {
  const values: Record<string, string> = {};
  for (const layer of [...layers].reverse()) Object.assign(values, layer);
  const scopes: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    const m = /^(@[^:/]+):registry$/.exec(k);
    if (m && v) scopes[m[1]!.toLowerCase()] = withSlash(v);
  }
  return { registry: withSlash(values.registry || DEFAULT_REGISTRY), scopes, values, files };
}

/** The registry a package resolves through: its scope's, or the default one. */
export function registryFor(cfg: NpmConfig, pkg: string): string {
  const scope = pkg.startsWith('@') ? pkg.slice(0, pkg.indexOf('/')).toLowerCase() : null;
  return (scope && cfg.scopes[scope]) || cfg.registry;
}

/**
 * The Authorization header npm would send to `url`: the credentials keyed by the longest
 * `//host[:port]/path/` prefix of the URL (npm's "nerf dart"), or none. Never a token keyed to
 * another host.
 */
export function authorizationFor(cfg: NpmConfig, url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const segments = u.pathname.split('/').slice(1, -1);
  for (let n = segments.length; n >= 0; n--) {
    const key = `//${u.host}/${segments.slice(0, n).map((s) => `${s}/`).join('')}`;
    const get = (name: string): string | undefined => cfg.values[`${key}:${name}`] || undefined;
    const token = get('_authToken');
    if (token) return `Bearer ${token}`;
    const auth = get('_auth');
    if (auth) return `Basic ${auth}`;
    const user = get('username');
    const pass = get('_password');
    if (user && pass) return `Basic ${Buffer.from(`${user}:${Buffer.from(pass, 'base64').toString('utf8')}`).toString('base64')}`;
  }
  return undefined;
}

/** npm's local prefix: the nearest folder up from `cwd` holding package.json or node_modules. */
export function projectFolder(cwd: string): string | null {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'node_modules'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

function readLayer(file: string, env: Readonly<Record<string, string | undefined>>, files: string[]): Record<string, string> {
  try {
    const parsed = parseNpmrc(readFileSync(file, 'utf8'), env);
    files.push(file);
    return parsed;
  } catch {
    return {};
  }
}

/** The configuration npm would use in `cwd`. */
export function loadNpmConfig(cwd: string = process.cwd(), env: Readonly<Record<string, string | undefined>> = process.env): NpmConfig {
  const files: string[] = [];
  const fromEnv = envNpmConfig(env);
  const project = projectFolder(cwd);
  const projectLayer = project ? readLayer(join(project, '.npmrc'), env, files) : {};
  const userFile = fromEnv.userconfig || join(env.HOME || homedir(), '.npmrc');
  const userLayer = project && join(project, '.npmrc') === userFile ? {} : readLayer(userFile, env, files);
  return mergeNpmConfig([fromEnv, projectLayer, userLayer], files);
}
