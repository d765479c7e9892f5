/**
 * Warm search cost by number of hits (issue 15, "warm with many hits"):
 *
 *   npx tsx bench/warm-hits.ts --root <knowledge root> --topic <id> [--queries 100] [--limits 10,100]
 *
 * Starts `tkoma-ref serve` (from dist/: run `npm run build` first) on a root that already holds
 * the topic (bench/quality.ts builds .bench-work/quality/scifact/kb-none), then asks the SciFact
 * questions straight over its socket, the limits taking turns query by query so load changes hit
 * both alike. Prints p50/p95 per limit and the load average before and after.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { checkBuilt, cliEnv, spawnCli } from './lib/cli.js';
import { percentile, printTable, round } from './lib/stats.js';
import { BENCH_DATA, PROJECT } from './lib/store.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    topic: { type: 'string', default: 'topic-scifact' },
    queries: { type: 'string', default: '100' },
    limits: { type: 'string', default: '10,100' },
  },
});
if (!values.root) throw new Error('--root is required');
checkBuilt();
const root = values.root;
const limits = values.limits.split(',').map(Number);
const questions = readFileSync(join(BENCH_DATA, 'scifact', 'queries.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, Number(values.queries))
  .map((l) => (JSON.parse(l) as { text: string }).text);

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const loadBefore = load();
const server = spawnCli(['serve', '--json', '--embedder', 'none', '--root', root]);
try {
  await server.next((l) => l?.type === 'serving', 300_000);
  const { tryServer } = (await import(pathToFileURL(join(PROJECT, 'dist', 'lib', 'serve', 'client.js')).href)) as typeof import('../src/lib/serve/client.js');
  const env = cliEnv();
  const ask = async (question: string, limit: number): Promise<number> => {
    const t = performance.now();
    const res = (await tryServer(root, 'search', { question, topic: values.topic, limit, embedderFlag: 'none' }, { env, replyTimeoutMs: 600_000 })) as
      | { results: unknown[] }
      | undefined;
    if (!res) throw new Error('serve did not answer');
    return performance.now() - t;
  };
  for (const l of limits) await ask(questions[0]!, l); // index preload, JIT warm-up
  const times = new Map<number, number[]>(limits.map((l) => [l, []]));
  for (const q of questions) for (const l of limits) times.get(l)!.push(await ask(q, l));
  printTable(
    ['limit', 'queries', 'p50 ms', 'p95 ms'],
    limits.map((l) => [l, times.get(l)!.length, round(percentile(times.get(l)!, 50), 2), round(percentile(times.get(l)!, 95), 2)]),
  );
  console.log(`load average before: ${loadBefore}; after: ${load()}`);
} finally {
  await server.stop();
}
