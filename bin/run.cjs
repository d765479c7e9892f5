#!/usr/bin/env node
'use strict';
// The installed binary. CommonJS, so a search starts without Node's ES module loader: `search`
// and `mcp` with plain arguments run from the code-cached bundle (dist/boot.cjs, src/cli/boot.ts);
// everything else, and anything unusual, goes to oclif.
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

(async () => {
  if (argv[0] === 'search' || argv[0] === 'mcp') {
    const fast = boot();
    if (fast && (await fast.runFastPath(argv))) return;
  }
  const { execute, settings } = await import('@oclif/core');
  // The installed binary runs the compiled dist/ only; never look for TypeScript sources, whatever
  // NODE_ENV says (oclif would otherwise warn under NODE_ENV=test/development).
  settings.enableAutoTranspile = false;
  await execute({ dir: require('node:url').pathToFileURL(__filename).href });
})();
