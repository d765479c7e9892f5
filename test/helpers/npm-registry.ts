/**
 * A real npm registry on 127.0.0.1 for tests: package documents (full JSON, which every client
 * can read in place of the abbreviated form), single-version documents, and tarballs made by
 * `npm pack` from fixture packages. Packing happens once per fixture (npm is slow to start).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { startServer, type TestServer } from './http-server.js';

export interface PackedVersion {
  name: string;
  version: string;
  tgz: Buffer;
  integrity: string;
  shasum: string;
  fileCount: number;
  unpackedSize: number;
  repository?: unknown;
  gitHead?: string;
}

/** Packs a fixture package with the real `npm pack` and returns its tarball and npm's figures. */
export function npmPack(workDir: string, pkg: { name: string; version: string; files: Record<string, string>; repository?: unknown; gitHead?: string }): PackedVersion {
  const dir = join(workDir, `${pkg.name.replace('/', '+')}-${pkg.version}`);
  mkdirSync(dir, { recursive: true });
  const manifest = { name: pkg.name, version: pkg.version, description: `fixture ${pkg.name}`, ...(pkg.repository ? { repository: pkg.repository } : {}), license: 'MIT' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  for (const [p, content] of Object.entries(pkg.files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), content);
  }
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' },
  });
  const info = (JSON.parse(out) as { filename: string; integrity: string; shasum: string; entryCount: number; unpackedSize: number }[])[0]!;
  return {
    name: pkg.name,
    version: pkg.version,
    tgz: readFileSync(join(dir, info.filename)),
    integrity: info.integrity,
    shasum: info.shasum,
    fileCount: info.entryCount,
    unpackedSize: info.unpackedSize,
    ...(pkg.repository ? { repository: pkg.repository } : {}),
    ...(pkg.gitHead ? { gitHead: pkg.gitHead } : {}),
  };
}

export interface TestRegistry {
  url: string;
  server: TestServer;
  publish(v: PackedVersion, opts?: { integrity?: string; tag?: string }): void;
  tag(name: string, tag: string, version: string): void;
  close(): Promise<void>;
}

/** With `token`, every request without `authorization: Bearer <token>` is answered 401. */
export async function startRegistry(opts: { token?: string } = {}): Promise<TestRegistry> {
  const server = await startServer();
  if (opts.token) {
    const route = server.route;
    server.route = (path, handler) =>
      route(path, (req, res) => {
        if (req.headers.authorization === `Bearer ${opts.token}`) return handler(req, res);
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end('unauthorized');
      });
  }
  const docs = new Map<string, { name: string; 'dist-tags': Record<string, string>; versions: Record<string, Record<string, unknown>> }>();
  const docPath = (name: string) => `/${name.replace('/', '%2f')}`;
  const route = (name: string) => {
    const doc = docs.get(name)!;
    const json = (body: unknown) => (_req: unknown, res: import('node:http').ServerResponse) => {
      const buf = Buffer.from(JSON.stringify(body));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': buf.length });
      res.end(buf);
    };
    server.route(docPath(name), json(doc));
    for (const [v, meta] of Object.entries(doc.versions)) server.route(`${docPath(name)}/${v}`, json(meta));
  };
  return {
    url: `${server.base}/`,
    server,
    publish(v, opts = {}) {
      const doc = docs.get(v.name) ?? { name: v.name, 'dist-tags': {}, versions: {} };
      const file = `${v.name.split('/').pop()}-${v.version}.tgz`;
      const tarPath = `/${v.name}/-/${file}`;
      doc.versions[v.version] = {
        name: v.name,
        version: v.version,
        ...(v.repository ? { repository: v.repository } : {}),
        ...(v.gitHead ? { gitHead: v.gitHead } : {}),
        dist: { tarball: server.url(tarPath), integrity: opts.integrity ?? v.integrity, shasum: v.shasum, fileCount: v.fileCount, unpackedSize: v.unpackedSize },
      };
      doc['dist-tags'][opts.tag ?? 'latest'] = v.version;
      docs.set(v.name, doc);
      server.route(tarPath, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': v.tgz.length });
        res.end(v.tgz);
      });
      route(v.name);
    },
    tag(name, tag, version) {
      docs.get(name)!['dist-tags'][tag] = version;
      route(name);
    },
    close: () => server.close(),
  };
}
