#!/usr/bin/env node
'use strict';
// The installed binary. CommonJS, so a search starts without Node's ES module loader: the commands
// src/cli/fast-names.ts lists, with plain arguments, run from the code-cached bundle (dist/boot.cjs,
// src/cli/boot.ts, which answers false at once for any other); everything else, and anything
// unusual, goes to oclif.
const argv = process.argv.slice(2);

/** dist/boot.cjs, or null when the build made none (then oclif answers everything). */
function boot() {
  try {
    return require('../dist/boot.cjs');
  } catch (err) {
    // Only boot.cjs itself missing (the message's first line); not a module it requires.
    if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).split('\n')[0].includes('boot.cjs')) return null;
    throw err;
  }
}

/**
 * `--version` (oclif answers it from argv[0] only, whatever follows) without loading oclif's ~160
 * modules: its own line, `name/version platform-arch node-vX`, or with --json the init hook's
 * document. Left to oclif where its answer could differ: under DEBUG (its debug lines) and on a
 * Linux that might be WSL (oclif then says `wsl`).
 */
function version() {
  if (argv[0] !== '--version' || process.env.DEBUG) return false;
  const fs = require('node:fs');
  const os = require('node:os');
  if (process.platform === 'linux') {
    let wsl = os.release().toLowerCase().includes('microsoft') || fs.existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') || fs.existsSync('/run/WSL');
    try {
      wsl = wsl || fs.readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft');
    } catch {
      // no /proc: nothing says WSL
    }
    if (wsl) return false;
  }
  const pjson = JSON.parse(fs.readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'));
  const platform = `${process.platform}-${os.arch() === 'ia32' ? 'x86' : os.arch()}`;
  const version = pjson.version || '0.0.0';
  process.stdout.write(
    argv.includes('--json')
      ? JSON.stringify({ name: pjson.name, version, node: process.version, platform }) + '\n'
      : `${pjson.name}/${version} ${platform} node-${process.version}\n`,
  );
  return true;
}

(async () => {
  if (version()) return;
  const fast = boot();
  if (fast && (await fast.runFastPath(argv))) return;
  const { execute, settings } = await import('@oclif/core');
  // The installed binary runs the compiled dist/ only; never look for TypeScript sources, whatever
  // NODE_ENV says (oclif would otherwise warn under NODE_ENV=test/development).
  settings.enableAutoTranspile = false;
  await execute({ dir: require('node:url').pathToFileURL(__filename).href });
})();
