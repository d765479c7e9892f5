// Build step after tsc: bundles the start-up fast path (dist/cli/fast.js and every module it can
// load) into one CommonJS file, dist/fast.cjs, that src/cli/boot.ts runs through V8's code cache.
// Node 20 caches no compiled ES modules, and compiling ~60 of them was a third of a cold search.
//
// Packages stay outside (required at run time from node_modules). `import.meta` has no CommonJS
// form, so each use is rewritten to the URL of the dist file it came from: paths built from it
// (package.json, worker scripts, grammars) resolve exactly as they do unbundled.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const outfile = join(dist, 'fast.cjs');

/** `import.meta.url` / `import.meta.resolve` of one dist file, as calls to the helpers below. */
const importMetaOfDistFile = {
  name: 'import-meta-of-dist-file',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const rel = JSON.stringify(relative(dist, args.path).split(sep).join('/'));
      const contents = text
        .replaceAll('import.meta.url', `__tkomaDistUrl(${rel})`)
        .replaceAll('import.meta.resolve(', `__tkomaDistResolve(${rel}, `);
      return { contents, loader: 'js' };
    });
  },
};

// Runs inside the bundle, where __dirname is dist/.
const banner = [
  '"use strict";',
  'const __tkomaDistUrl = (rel) => require("node:url").pathToFileURL(require("node:path").join(__dirname, rel)).href;',
  'const __tkomaDistResolve = (rel, spec) => require("node:url").pathToFileURL(require("node:module").createRequire(__tkomaDistUrl(rel)).resolve(spec)).href;',
].join('\n');

const result = await build({
  entryPoints: [join(dist, 'cli', 'fast.js')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // A dynamic import() inside a vm.Script needs a loader callback; require() needs nothing.
  supported: { 'dynamic-import': false },
  banner: { js: banner },
  plugins: [importMetaOfDistFile],
  write: false,
  logLevel: 'warning',
});

const code = result.outputFiles[0].text;
// Anything left would be esbuild's empty stand-in object: a path that silently points nowhere.
if (/import\.meta|import_meta\d*\s*=\s*\{\s*\}/.test(code)) {
  console.error('bundle-fast: an import.meta use was not rewritten; see scripts/bundle-fast.mjs');
  process.exit(1);
}
// The first line names the content: boot.ts keys the code cache by it, since V8 itself only
// checks a cache against the source's length.
const digest = createHash('sha256').update(code).digest('hex').slice(0, 20);
writeFileSync(outfile, `// tkoma-ref fast path ${digest}\n${code}`);
console.log(`bundle-fast: ${relative(process.cwd(), outfile)} (${(code.length / 1024).toFixed(0)} KiB, ${digest})`);
