#!/usr/bin/env node
// `search` and `mcp` skip oclif's start-up when their arguments are plain (src/cli/fast.ts, run
// from its code-cached bundle by src/cli/boot.ts).
const argv = process.argv.slice(2);
if ((argv[0] !== 'search' && argv[0] !== 'mcp') || !(await (await import('../dist/cli/boot.js')).runFastPath(argv))) {
  const { execute, settings } = await import('@oclif/core');
  // The installed binary runs the compiled dist/ only; never look for TypeScript sources, whatever
  // NODE_ENV says (oclif would otherwise warn under NODE_ENV=test/development).
  settings.enableAutoTranspile = false;
  await execute({ dir: import.meta.url });
}
