/**
 * A project's direct dependencies at the versions its lockfile pins: package-lock.json (v1, and
 * v2/v3 with workspaces and `npm:` aliases), Cargo.lock, go.mod. Pure: text in, records out.
 */

export type Ecosystem = 'npm' | 'cargo' | 'go';

export interface Dependency {
  ecosystem: Ecosystem;
  /** The package's real name (an alias's target: `"z": "npm:zod@^3"` is zod). */
  name: string;
  /** The exact version the lockfile pins. */
  version: string;
  /** The name the project uses for it, when an alias differs from `name`. */
  alias?: string;
  /** Only a development dependency (devDependencies, dev-dependencies). */
  dev: boolean;
  /** The workspace member that depends on it, when not the root project (its folder). */
  workspace?: string;
  /** Where the source lives, when the lockfile says (Go module paths; npm reads installed package.json). */
  repository?: string;
  lockfile: string;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strMap = (v: unknown): Record<string, string> => (isObj(v) ? (Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<string, string>) : {});

/** `npm:zod@^3` → zod; anything else → null. */
function aliasTarget(spec: string): string | null {
  const m = /^npm:((?:@[^/@]+\/)?[^@]+)(?:@.*)?$/.exec(spec);
  return m ? m[1]! : null;
}

/** Direct dependencies of a manifest (package.json or a lockfile's `packages[""]`), dev marked. */
function declared(manifest: Json): { name: string; spec: string; dev: boolean }[] {
  const out = new Map<string, { name: string; spec: string; dev: boolean }>();
  for (const [field, dev] of [['devDependencies', true], ['optionalDependencies', false], ['peerDependencies', false], ['dependencies', false]] as const) {
    for (const [name, spec] of Object.entries(strMap(manifest[field]))) out.set(name, { name, spec, dev });
  }
  return [...out.values()];
}

/**
 * package-lock.json. v2/v3: the root (`packages[""]`) and every workspace member (a `packages`
 * key outside node_modules) list their direct dependencies; each resolves as Node would, in the
 * member's own node_modules first, then the root's. Linked (workspace) packages are the project's
 * own and are left out. v1: the root's `dependencies` against package.json's declarations.
 */
export function parsePackageLock(text: string, packageJsonText?: string, lockfile = 'package-lock.json'): Dependency[] {
  const lock = JSON.parse(text) as Json;
  const out: Dependency[] = [];
  const packages = isObj(lock.packages) ? lock.packages : null;
  if (packages) {
    for (const [key, entry] of Object.entries(packages)) {
      if (!isObj(entry) || key.includes('node_modules/') || key.startsWith('node_modules')) continue;
      for (const d of declared(entry)) {
        const found = (isObj(packages[`${key ? `${key}/` : ''}node_modules/${d.name}`]) ? packages[`${key ? `${key}/` : ''}node_modules/${d.name}`] : packages[`node_modules/${d.name}`]) as Json | undefined;
        if (!isObj(found) || found.link === true || typeof found.version !== 'string') continue;
        const real = typeof found.name === 'string' ? found.name : (aliasTarget(d.spec) ?? d.name);
        out.push({
          ecosystem: 'npm',
          name: real,
          version: found.version,
          ...(real !== d.name ? { alias: d.name } : {}),
          dev: d.dev,
          ...(key ? { workspace: key } : {}),
          lockfile,
        });
      }
    }
    return out;
  }
  const deps = isObj(lock.dependencies) ? lock.dependencies : {};
  const manifest = packageJsonText ? (JSON.parse(packageJsonText) as Json) : null;
  const direct = manifest ? declared(manifest) : Object.keys(deps).map((name) => ({ name, spec: '', dev: false }));
  for (const d of direct) {
    const e = deps[d.name];
    if (!isObj(e) || typeof e.version !== 'string') continue;
    const alias = /^npm:((?:@[^/@]+\/)?[^@]+)@(.+)$/.exec(e.version);
    out.push({ ecosystem: 'npm', name: alias ? alias[1]! : d.name, version: alias ? alias[2]! : e.version, ...(alias ? { alias: d.name } : {}), dev: d.dev, lockfile });
  }
  return out;
}

/** The `[[package]]` tables of a Cargo.lock (its TOML is regular enough to read line by line). */
function cargoPackages(text: string): { name: string; version: string; source?: string; dependencies: string[] }[] {
  const out: { name: string; version: string; source?: string; dependencies: string[] }[] = [];
  let cur: (typeof out)[number] | null = null;
  let inDeps = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (inDeps) {
      if (line.startsWith(']')) inDeps = false;
      else cur!.dependencies.push(...[...line.matchAll(/"([^"]+)"/g)].map((m) => m[1]!));
      continue;
    }
    if (line === '[[package]]') {
      cur = { name: '', version: '', dependencies: [] };
      out.push(cur);
      continue;
    }
    if (line.startsWith('[')) {
      cur = null; // [metadata], [[patch.unused]]: not a package
      continue;
    }
    if (!cur) continue;
    const kv = /^(\w+)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    const [, key, value] = kv;
    if (key === 'dependencies') {
      const inline = /^\[(.*)\]$/.exec(value!);
      if (inline) cur.dependencies.push(...[...inline[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!));
      else inDeps = true;
      continue;
    }
    const str = /^"(.*)"$/.exec(value!);
    if (!str) continue;
    if (key === 'name') cur.name = str[1]!;
    else if (key === 'version') cur.version = str[1]!;
    else if (key === 'source') cur.source = str[1]!;
  }
  return out.filter((p) => p.name && p.version);
}

/**
 * Cargo.lock: the project's own crates are the packages without a `source`; what they list as
 * `dependencies` (`name`, or `name version` when several versions are locked) are the direct
 * dependencies, at the version the lock holds. Crates of the project itself are left out.
 * Cargo.lock does not tell dev-dependencies apart: Cargo.toml's are marked when given.
 */
export function parseCargoLock(text: string, cargoTomlText?: string, lockfile = 'Cargo.lock'): Dependency[] {
  const pkgs = cargoPackages(text);
  const local = pkgs.filter((p) => p.source === undefined);
  const localNames = new Set(local.map((p) => p.name));
  const devOnly = cargoTomlText ? cargoDevOnly(cargoTomlText) : new Set<string>();
  const seen = new Set<string>();
  const out: Dependency[] = [];
  for (const member of local) {
    for (const ref of member.dependencies) {
      const [name, version] = ref.split(' ') as [string, string | undefined];
      if (localNames.has(name)) continue;
      const matches = pkgs.filter((p) => p.name === name && p.source !== undefined && (!version || p.version === version));
      const pick = matches[0];
      if (!pick || seen.has(`${name}@${pick.version}`)) continue;
      seen.add(`${name}@${pick.version}`);
      out.push({ ecosystem: 'cargo', name, version: pick.version, dev: devOnly.has(name), ...(local.length > 1 ? { workspace: member.name } : {}), lockfile });
    }
  }
  return out;
}

/** Crates a Cargo.toml lists only under `[dev-dependencies]`. */
function cargoDevOnly(toml: string): Set<string> {
  const normal = new Set<string>();
  const dev = new Set<string>();
  let section = '';
  for (const raw of toml.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const head = /^\[([^\]]+)\]$/.exec(line);
    if (head) {
      section = head[1]!.replace(/^target\.[^.]+(?:\([^)]*\))?\./, '');
      continue;
    }
    const key = /^([A-Za-z0-9_-]+)\s*=/.exec(line);
    if (!key) continue;
    if (section === 'dev-dependencies') dev.add(key[1]!);
    else if (section === 'dependencies' || section === 'build-dependencies') normal.add(key[1]!);
  }
  return new Set([...dev].filter((n) => !normal.has(n)));
}

/** go.mod: `require` lines not marked `// indirect`; the module path names the repository on the usual hosts. */
export function parseGoMod(text: string, lockfile = 'go.mod'): Dependency[] {
  const out: Dependency[] = [];
  let block = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^require\s*\($/.test(line)) {
      block = true;
      continue;
    }
    if (block && line === ')') {
      block = false;
      continue;
    }
    const m = block ? /^(\S+)\s+(v\S+)(.*)$/.exec(line) : /^require\s+(\S+)\s+(v\S+)(.*)$/.exec(line);
    if (!m || /\/\/\s*indirect\b/.test(m[3]!)) continue;
    const repo = goRepository(m[1]!);
    out.push({ ecosystem: 'go', name: m[1]!, version: m[2]!.replace(/\+incompatible$/, ''), dev: false, ...(repo ? { repository: repo } : {}), lockfile });
  }
  return out;
}

/** `github.com/o/r/v2/sub` → `https://github.com/o/r` (GitHub, GitLab, Bitbucket only; vanity paths are unknown). */
export function goRepository(modulePath: string): string | null {
  const m = /^(github\.com|gitlab\.com|bitbucket\.org)\/([^/]+)\/([^/]+)/.exec(modulePath);
  return m ? `https://${m[1]}/${m[2]}/${m[3]}` : null;
}

const unquote = (s: string): string => s.trim().replace(/^(['"])(.*)\1$/, '$2');

/** A pnpm version: `1.6.0(@types/node@20.1.0)` → 1.6.0; `zod@4.1.0` (an alias) → zod, 4.1.0; `link:` → null. */
function pnpmVersion(raw: string): { name?: string; version: string } | null {
  const v = unquote(raw).replace(/\(.*$/, '').replace(/_.*$/, ''); // v6+ peers in (), v5 after _
  if (/^(link|file|workspace):/.test(v)) return null;
  const alias = /^((?:@[^/@]+\/)?[^@]+)@(\d.*)$/.exec(v);
  return alias ? { name: alias[1]!, version: alias[2]! } : /^\d/.test(v) ? { version: v } : null;
}

/**
 * pnpm-lock.yaml: each importer (`.` and the workspace members) with its dependencies,
 * devDependencies and optionalDependencies, at the versions locked (lockfile v6 and later:
 * `name: {specifier, version}`; v5: `name: version` at the top). Read by indentation: the lock is
 * machine-written and regular.
 */
export function parsePnpmLock(text: string, lockfile = 'pnpm-lock.yaml'): Dependency[] {
  const out: Dependency[] = [];
  const lines = text.split(/\r?\n/);
  const indent = (l: string) => l.length - l.trimStart().length;
  const push = (importer: string, section: string, name: string, raw: string) => {
    const v = pnpmVersion(raw);
    if (!v) return;
    out.push({ ecosystem: 'npm', name: v.name ?? name, version: v.version, ...(v.name && v.name !== name ? { alias: name } : {}), dev: section === 'devDependencies', ...(importer && importer !== '.' ? { workspace: importer } : {}), lockfile });
  };
  const SECTIONS = new Set(['dependencies', 'devDependencies', 'optionalDependencies']);
  let top = '';
  let importer = '';
  let section = '';
  let name = '';
  for (const line of lines) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const depth = indent(line);
    const m = /^\s*((?:'[^']*'|"[^"]*"|[^:\s][^:]*?)):\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = unquote(m[1]!);
    const value = m[2]!.trim();
    if (depth === 0) {
      top = key;
      importer = '';
      section = SECTIONS.has(key) ? key : '';
      continue;
    }
    if (top === 'importers') {
      if (depth === 2) importer = key;
      else if (depth === 4) section = SECTIONS.has(key) ? key : '';
      else if (depth === 6 && section) {
        name = key;
        if (value) push(importer, section, name, value); // v6 inline `name: version`
      } else if (depth === 8 && section && key === 'version') push(importer, section, name, value);
    } else if (section && depth === 2 && value) push('', section, key, value); // lockfile v5
  }
  return out;
}

/**
 * yarn.lock (v1, and berry's YAML form): the entries whose keys name a dependency package.json
 * declares (`zod@^3.23.0`, berry's `zod@npm:^3.23.0`, aliases `z4@npm:zod@^4`), at their version.
 */
export function parseYarnLock(text: string, packageJsonText: string, lockfile = 'yarn.lock'): Dependency[] {
  const byKey = new Map<string, string>();
  let keys: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    if (!/^\s/.test(line) && line.trimEnd().endsWith(':')) {
      keys = line.trimEnd().slice(0, -1).split(/,\s*/).map(unquote);
      continue;
    }
    const v = /^\s+version:?\s+"?([^"\s]+)"?\s*$/.exec(line);
    if (v) for (const k of keys) byKey.set(k, v[1]!);
  }
  const out: Dependency[] = [];
  for (const d of declared(JSON.parse(packageJsonText) as Json)) {
    const version = byKey.get(`${d.name}@${d.spec}`) ?? byKey.get(`${d.name}@npm:${d.spec}`);
    if (!version) continue;
    const target = aliasTarget(d.spec);
    out.push({ ecosystem: 'npm', name: target ?? d.name, version, ...(target && target !== d.name ? { alias: d.name } : {}), dev: d.dev, lockfile });
  }
  return out;
}
