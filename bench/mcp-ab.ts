/**
 * Two builds' MCP servers asked the same `reference_search` calls in turns, call by call, so the
 * load of a shared machine (which moved a lone run's p50 by 2× here) hits both alike:
 *
 *   npx tsx bench/mcp-ab.ts --before <project dir> --before-root <root> --root <root>
 *                           [--topic topic-scifact] [--limit 10] [--calls 300]
 *
 * `--before` is another checkout of this project with its own `npm run build` (e.g. `git archive`
 * of the base commit, dist/ built, node_modules linked); this checkout is "after". Each server
 * needs its own root (a copy: `cp -a`), since the first one also serves its root's socket and a
 * second would take the other code path. Prints p50/p95 per side, each server's CPU time per
 * call (from /proc, far steadier than wall time here), and whether every answer was the same.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { checkBuilt, cliEnv } from './lib/cli.js';
import { mean, percentile, printTable, round } from './lib/stats.js';
import { BENCH_DATA, PROJECT } from './lib/store.js';

interface Side {
  name: string;
  child: ChildProcessWithoutNullStreams;
  ask(method: string, params: unknown): Promise<any>;
  times: number[];
}

function start(name: string, project: string, root: string): Side {
  const child = spawn(process.execPath, [join(project, 'bin', 'run.cjs'), 'mcp', '--root', root], { env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  let buf = '';
  let id = 0;
  const waiting = new Map<number, (m: any) => void>();
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  const ask = (method: string, params: unknown): Promise<any> =>
    new Promise((resolve, reject) => {
      const n = ++id;
      waiting.set(n, (m) => (m.error ? reject(new Error(`${name} ${method}: ${m.error.message}`)) : resolve(m.result)));
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }) + '\n');
    });
  return { name, child, ask, times: [] };
}

/** User + system CPU of a process so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    'before-root': { type: 'string' },
    root: { type: 'string' },
    topic: { type: 'string', default: 'topic-scifact' },
    limit: { type: 'string', default: '10' },
    calls: { type: 'string', default: '300' },
  },
});
if (!values.before || !values['before-root'] || !values.root) throw new Error('--before, --before-root and --root are required');
checkBuilt();
const limit = Number(values.limit);
const calls = Number(values.calls);
const questions = readFileSync(join(BENCH_DATA, 'scifact', 'queries.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { text: string }).text);
const args = (question: string): Record<string, unknown> => ({ topic: values.topic, question, limit });

const sides = [start('before', values.before, values['before-root']), start('after', PROJECT, values.root)];
try {
  for (const s of sides) {
    await s.ask('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-ab', version: '1' } });
    s.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    const first = await s.ask('tools/call', { name: 'reference_search', arguments: args(questions[0]!) }); // waits for warm-up
    if (first.isError) throw new Error(`${s.name}: ${first.content[0].text}`);
  }
  const loadBefore = loadavg()[0]!;
  const cpu0 = sides.map((s) => cpuMs(s.child.pid!));
  let same = 0;
  for (let i = 0; i < calls; i++) {
    const q = questions[i % questions.length]!;
    const answers: string[] = [];
    // Who goes first alternates too: the second of a pair may find caches the first warmed.
    for (const s of i % 2 ? [...sides].reverse() : sides) {
      const t = performance.now();
      const r = await s.ask('tools/call', { name: 'reference_search', arguments: args(q) });
      s.times.push(performance.now() - t);
      answers.push(JSON.stringify(r));
    }
    if (answers[0] === answers[1]) same++;
  }
  printTable(
    ['build', 'calls', 'p50 ms', 'p95 ms', 'mean ms', 'server CPU ms/call'],
    sides.map((s, k) => [s.name, calls, round(percentile(s.times, 50), 2), round(percentile(s.times, 95), 2), round(mean(s.times), 2), round((cpuMs(s.child.pid!) - cpu0[k]!) / calls, 2)]),
  );
  console.log(`identical answers: ${same}/${calls}; limit ${limit}; load average ${loadBefore.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`);
} finally {
  for (const s of sides) s.child.stdin.end();
}
