/**
 * A page that is only `<main>` and N bare links (issue 25, finding 1): how long the HTML →
 * markdown conversion takes, and how long a whole `topic create` of that page takes, with peak
 * memory. The page is served by a real HTTP server on 127.0.0.1.
 *
 *   npm run bench:links -- [--links 10000,50000] [--skip-create]
 *
 * Needs `npm run build` (conversion and CLI run from dist/). Prints wall and CPU time and peak RSS
 * of each child process, and the load average, since wall time is noisy on a shared machine.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const PROJECT = resolve(import.meta.dirname, '..');
const BIN = join(PROJECT, 'bin', 'run.cjs');

interface Measured {
  wall_s: number;
  cpu_s: number;
  peak_mb: number;
  out: string;
}

/** Runs a command under GNU time: wall, user + system CPU, peak RSS. */
function timed(cmd: string[], env: NodeJS.ProcessEnv = process.env): Measured {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S %M', ...cmd], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`no timing from ${cmd.join(' ')}: ${r.stderr.slice(-500)}`);
  return { wall_s: Number(m[1]), cpu_s: Number(m[2]) + Number(m[3]), peak_mb: Math.round(Number(m[4]) / 1024), out: r.stdout };
}

const linkPage = (n: number) => `<main>${Array.from({ length: n }, (_, i) => `<a href="/ok?${i}">l</a>`).join('')}</main>`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { links: { type: 'string', default: '10000,50000' }, 'skip-create': { type: 'boolean', default: false } } });
  const counts = values.links.split(',').map(Number);
  const pages = new Map(counts.map((n) => [`/links-${n}`, linkPage(n)]));
  const server = createServer((req, res) => {
    const body = pages.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const work = mkdtempSync(join(tmpdir(), 'tkoma-bench-links-'));
  const rows: string[] = [];
  try {
    for (const n of counts) {
      // Conversion alone, in a child of its own (its peak RSS is the conversion's).
      const convert = timed([
        process.execPath,
        '--input-type=module',
        '-e',
        `import { htmlToMarkdown } from ${JSON.stringify(join(PROJECT, 'dist/lib/sources/html.js'))};
         let html = '<main>';
         for (let i = 0; i < ${n}; i++) html += '<a href="/ok?' + i + '">l</a>';
         html += '</main>';
         const md = htmlToMarkdown(html, 'http://127.0.0.1/').markdown;
         console.log(md.length);`,
      ]);
      rows.push(`| ${n.toLocaleString('en-US')} | conversion only | ${convert.wall_s} | ${convert.cpu_s.toFixed(2)} | ${convert.peak_mb} | ${Number(convert.out.trim()).toLocaleString('en-US')} chars of markdown |`);
      if (values['skip-create']) continue;
      // With the default caps (max_file_bytes 1 MiB), then with room for the whole page.
      for (const limits of [undefined, { max_file_bytes: 8 * 1024 * 1024 }]) {
        const root = join(work, `kb-${n}-${limits ? 'raised' : 'default'}`);
        const env = { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' };
        spawnSync(process.execPath, [BIN, 'init', '--json', '--root', root], { env });
        const input = JSON.stringify({ title: `Links ${n}`, body: '# Links\n\nA page of links.\n', topic_id: `topic-links-${n}`, sources: [{ type: 'web', url: `${base}/links-${n}` }], ...(limits ? { limits } : {}) });
        // The server runs in this process: spawnSync would block it, so phase 1 and 2 run async.
        const phase1 = await runAsync([process.execPath, BIN, 'topic', 'create', '--json', '--root', root, '--input', input], env);
        // The operator's yes, then the identical request.
        await runAsync([process.execPath, BIN, 'approve', JSON.parse(phase1.out).request_id as string, '--root', root], env);
        const created = await runAsync(['/usr/bin/time', '-f', 'TIME %e %U %S %M', process.execPath, BIN, 'topic', 'create', '--json', '--root', root, '--input', input], env);
        const j = JSON.parse(created.out) as { status?: string; file_count?: number; chunk_count?: number; error?: { code: string; sources?: { error?: { message?: string } }[] } };
        const result = j.status ? `${j.status}: ${j.file_count} file, ${j.chunk_count} chunks` : `refused, ${j.error?.code}: ${j.error?.sources?.[0]?.error?.message ?? ''}`;
        const t = created.measured!;
        const what = `\`topic create\` phase 2 (fetch, convert, commit, index), ${limits ? 'max_file_bytes 8 MiB' : 'default caps'}`;
        rows.push(`| ${n.toLocaleString('en-US')} | ${what} | ${t.wall_s} | ${t.cpu_s.toFixed(2)} | ${t.peak_mb} | ${result.replace(/\|/g, '\\|')} |`);
      }
    }
  } finally {
    server.close();
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
  console.log('| links | what | wall s | CPU s | peak RSS MB | result |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

/** Runs a command without blocking this process's server: its stdout, and GNU time's figures when it ran under it. */
function runAsync(cmd: string[], env: NodeJS.ProcessEnv): Promise<{ out: string; measured?: Omit<Measured, 'out'> }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd[0]!, cmd.slice(1), { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(err);
      resolveRun({ out, ...(m ? { measured: { wall_s: Number(m[1]), cpu_s: Number(m[2]) + Number(m[3]), peak_mb: Math.round(Number(m[4]) / 1024) } } : {}) });
    });
  });
}

await main();
