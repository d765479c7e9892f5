/**
 * Every benchmark, one after another, each in its own process (so peak memory is its own):
 *
 *   npm run bench            full suite into docs/benchmarks.json and docs/BENCHMARKS.md
 *   npm run bench:smoke      a few documents, queries and tiny corpora (< 60 s), into
 *                            .bench-work/smoke-benchmarks.json and SMOKE-BENCHMARKS.md only
 *
 * The CLI benchmarks (sync, latency) run the built binary: `npm run build` first.
 * Extra flags (--out-dir, --work-dir) are passed to every script.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { isMain } from './lib/main.js';
import { outputsFor, PROJECT, regenerateReport } from './lib/store.js';

export const SCRIPTS = ['quality', 'repo-qa', 'throughput', 'index-sync', 'latency', 'mcp', 'vector-lifecycle', 'git-sync'] as const;

function runScript(name: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT, 'bench', `${name}.ts`), ...args], { cwd: PROJECT, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const smoke = args.includes('--smoke');
  const outIndex = args.indexOf('--out-dir');
  const outDir = outIndex >= 0 ? args[outIndex + 1] : undefined;
  const took: [string, number, number][] = [];
  const t0 = performance.now();
  for (const name of SCRIPTS) {
    const t = performance.now();
    console.log(`\n=== bench:${name}${smoke ? ' (smoke)' : ''} ===`);
    const code = await runScript(name, args);
    took.push([name, (performance.now() - t) / 1000, code]);
    if (code !== 0) {
      console.error(`bench:${name} failed (exit ${code})`);
      break;
    }
  }
  const out = outputsFor(smoke, outDir);
  regenerateReport(out);
  console.log('');
  for (const [name, s, code] of took) console.log(`${name.padEnd(12)} ${s.toFixed(1).padStart(7)} s${code === 0 ? '' : `  FAILED (${code})`}`);
  console.log(`total        ${((performance.now() - t0) / 1000).toFixed(1).padStart(7)} s → ${out.md}`);
  if (took.some(([, , code]) => code !== 0) || took.length < SCRIPTS.length) process.exitCode = 1;
}

if (isMain(import.meta.url)) await main();
