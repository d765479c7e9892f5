/**
 * The MCP server under hostile input and file churn (issue 25, items 2 and 4):
 *
 *   npx tsx bench/mcp-robust.ts [--bin bin/run.cjs] [--churn-seconds 30] [--sizes 2,5,9]
 *
 *   big lines:  one server; a `tools/call reference_search` whose question is N MB, as one line,
 *               timed from the write to its answer, and a small search sent right behind it
 *               (what every other caller waits); the server's CPU time for the big call.
 *   churn:      five topics; an "operator" writes one file into each topic every 0.5 s while one
 *               client asks `reference_search` (a topic in turn) back to back: p50/p95/max of the
 *               round trips, against the same searches with no writer (quiet).
 * `--bin` runs another build (e.g. a checkout of the commit before) for a before/after. Needs
 * `npm run build`. Prints figures; asserts nothing.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { BIN, checkBuilt, runCli } from './lib/cli.js';
import { repoFromFiles } from './lib/corpus.js';
import { StdioRpc } from './lib/rpc.js';
import { percentile, printTable, round } from './lib/stats.js';
import { WORK_DIR } from './lib/store.js';

const TOPICS = ['gears', 'pulleys', 'levers', 'springs', 'wheels'];

/** utime + stime of a process in ms, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function makeRoot(dir: string): Promise<string> {
  const root = join(dir, 'kb');
  rmSync(root, { recursive: true, force: true });
  const run = async (args: string[]): Promise<void> => {
    const r = await runCli([...args, '--root', root]);
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stdout}${r.stderr}`);
  };
  await run(['init']);
  for (const t of TOPICS) {
    const repo = await repoFromFiles(join(dir, `repo-${t}`), `robust-${t}-1`, function* () {
      yield ['README.md', `# ${t}\n\nHow ${t} work: torque, force, ratio and motion.\n`];
      for (let i = 0; i < 40; i++) yield [`docs/part-${i}.md`, `# ${t} part ${i}\n\nThe ${t} part ${i} carries load number ${i} with ratio ${i % 7}.\n`];
    });
    await run(['topic', 'create', '--yes', '--title', t, '--git', repo.url]);
  }
  return root;
}

function server(bin: string, root: string): StdioRpc {
  return new StdioRpc(process.execPath, [bin, 'mcp', '--root', root], { env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' } });
}

const search = (rpc: StdioRpc, topic: string, question: string): Promise<any> =>
  rpc.request('tools/call', { name: 'reference_search', arguments: { topic: `topic-${topic}`, question } }, 120_000);

async function bigLines(bin: string, root: string, sizesMb: number[]): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const rpc = server(bin, root);
  await rpc.initialize();
  await search(rpc, 'gears', 'torque'); // warm
  for (const mb of sizesMb) {
    const question = 'w '.repeat(Math.round((mb * 1e6) / 2));
    const cpu0 = cpuMs(rpc.child.pid!);
    const t0 = performance.now();
    const big = rpc.request('tools/call', { name: 'reference_search', arguments: { topic: 'topic-gears', question } }, 300_000).then(
      (r) => ({ ms: performance.now() - t0, answer: r?.isError ? (r.structuredContent?.error?.code ?? 'error') : 'results' }),
      (e: Error) => ({ ms: performance.now() - t0, answer: e.message.slice(0, 60) }),
    );
    const small = search(rpc, 'pulleys', 'force').then(() => performance.now() - t0);
    const [b, s] = await Promise.all([big, small]);
    rows.push({ line_mb: mb, big_answer_ms: round(b.ms, 0), answer: b.answer, small_behind_ms: round(s, 0), server_cpu_ms: round(cpuMs(rpc.child.pid!) - cpu0, 0) });
  }
  await rpc.close();
  return rows;
}

async function churn(bin: string, root: string, seconds: number): Promise<Record<string, unknown>[]> {
  const rpc = server(bin, root);
  await rpc.initialize();
  for (const t of TOPICS) await search(rpc, t, 'ratio'); // warm every topic
  const measure = async (ms: number): Promise<number[]> => {
    const out: number[] = [];
    const end = performance.now() + ms;
    for (let i = 0; performance.now() < end; i++) {
      const t0 = performance.now();
      await search(rpc, TOPICS[i % TOPICS.length]!, 'load ratio motion');
      out.push(performance.now() - t0);
    }
    return out;
  };
  const quiet = await measure(Math.min(10, seconds) * 1000);
  let n = 0;
  const writer = setInterval(() => {
    n++;
    for (const t of TOPICS) {
      const dir = join(root, 'references', `topic-${t}`, 'churn');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `note-${n}.md`), `# Note ${n}\n\nChurn note ${n} about ${t} and its load.\n`);
    }
  }, 500);
  const busy = await measure(seconds * 1000);
  clearInterval(writer);
  const cpu = cpuMs(rpc.child.pid!);
  await rpc.close();
  const row = (name: string, xs: number[]): Record<string, unknown> => ({
    phase: name,
    searches: xs.length,
    p50_ms: round(percentile(xs, 50), 0),
    p95_ms: round(percentile(xs, 95), 0),
    max_ms: round(Math.max(...xs), 0),
  });
  return [row('quiet', quiet), { ...row(`churn (${n} rounds x 5 files)`, busy), server_cpu_ms_total: round(cpu, 0) }];
}

function show(rows: Record<string, unknown>[]): void {
  const header = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  printTable(header, rows.map((r) => header.map((h) => (r[h] === undefined ? '' : (r[h] as string | number)))));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { bin: { type: 'string' }, 'churn-seconds': { type: 'string', default: '30' }, sizes: { type: 'string', default: '2,5,9' } } });
  checkBuilt();
  const bin = values.bin ? resolve(values.bin) : BIN;
  const dir = join(WORK_DIR, 'mcp-robust');
  mkdirSync(dir, { recursive: true });
  const root = await makeRoot(dir);
  process.stderr.write(`bin ${bin}\n`);
  show(await bigLines(bin, root, values.sizes.split(',').map(Number)));
  show(await churn(bin, root, Number(values['churn-seconds'])));
}

await main();
