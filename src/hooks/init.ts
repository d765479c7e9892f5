/**
 * Before oclif answers by itself: `--version --json` (oclif would print its plain user agent) is
 * one JSON document like every other answer under --json.
 */
import type { Hook } from '@oclif/core';

const hook: Hook<'init'> = async function (opts) {
  const argv = process.argv.slice(2);
  if (argv[0] === '--version' && argv.includes('--json')) {
    const c = opts.config;
    process.stdout.write(JSON.stringify({ name: c.name, version: c.version, node: process.version, platform: `${c.platform}-${c.arch}` }) + '\n');
    // oclif prints its own version line after this hook; nothing else is left to do.
    process.exit(0);
  }
};

export default hook;
