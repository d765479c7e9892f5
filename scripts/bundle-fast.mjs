// Build step after tsc: bundles the start-up fast path (dist/cli/fast.js and every module it can
// load) into one CommonJS file, dist/fast.cjs, that src/cli/boot.ts runs through V8's code cache,
// and boot.ts itself into dist/boot.cjs, which bin/run.cjs requires. Node 20 caches no compiled
// ES modules, and compiling ~60 of them was a third of a cold search.
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

/** One dist entry and what it imports from dist/, as one CommonJS file (packages stay outside). */
async function bundle(entry, supportsDynamicImport) {
  const result = await build({
    entryPoints: [join(dist, ...entry.split('/'))],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // fast.cjs runs inside a vm.Script, where import() would need a loader callback: require()
    // needs nothing. boot.cjs is required normally and keeps its one import(), of the separate
    // modules.
    supported: { 'dynamic-import': supportsDynamicImport },
    banner: { js: banner },
    plugins: [importMetaOfDistFile],
    write: false,
    logLevel: 'warning',
  });
  const code = asciiOnly(result.outputFiles[0].text, entry);
  // Anything left would be esbuild's empty stand-in object: a path that silently points nowhere.
  if (/import\.meta|import_meta\d*\s*=\s*\{\s*\}/.test(code)) {
    console.error(`bundle-fast: an import.meta use in ${entry}'s modules was not rewritten; see scripts/bundle-fast.mjs`);
    process.exit(1);
  }
  return code;
}

/**
 * esbuild escapes non-ASCII characters in strings but leaves them in regular expression literals
 * (`’`, `。`): one such character makes V8 hold the whole ~1 MB source as a two-byte string, twice
 * the memory boot.ts reads and compiles from on every call. Each UTF-16 unit becomes `\\uXXXX`,
 * which means the same in a string, a template and a regular expression (with or without the u
 * flag, where an escaped surrogate pair is still one code point); one after a backslash would not.
 */
function asciiOnly(code, entry) {
  return code.replace(/(\\?)([^\x00-\x7f])/g, (_, slash, c) => {
    if (slash) {
      console.error(`bundle-fast: an escaped non-ASCII character in ${entry}'s modules; write it as \\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      process.exit(1);
    }
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

const fast = await bundle('cli/fast.js', false);
// The first line names the content: boot.ts keys the code cache by it, since V8 itself only
// checks a cache against the source's length.
const digest = createHash('sha256').update(fast).digest('hex').slice(0, 20);
writeFileSync(join(dist, 'fast.cjs'), `// tkoma-ref fast path ${digest}\n${fast}`);
writeFileSync(join(dist, 'boot.cjs'), await bundle('cli/boot.js', true));
console.log(`bundle-fast: dist/fast.cjs (${(fast.length / 1024).toFixed(0)} KiB, ${digest}) and dist/boot.cjs`);
