import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { repoFromGitHead } from '../../bench/lib/git-tree-copy.js';
import { cpuTicksOfStat, treeCpuMs } from '../../bench/lib/proc-cpu.js';
import { findQmd, findRepo, hitsIn, peerRecord, withoutExtraCa } from '../../bench/peers.js';
import { longestWord } from '../../bench/peers-scale.js';
import type { BenchRecord } from '../../bench/lib/records.js';
import { peersTable, renderReport } from '../../bench/lib/report.js';
import { peersVerdict } from '../../bench/lib/targets.js';

const dir = mkdtempSync(join(tmpdir(), 'peers-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const machine = { cpus: 2, model: 'Test CPU', mem_gb: 8, node: 'v20.0.0' };
const peer = (mode: string, over: Record<string, number> = {}): BenchRecord => ({
  bench: 'peers',
  dataset: 'scifact (5,183 docs)',
  mode,
  embedder: 'none',
  runs: 3,
  ours_p50_ms: 100,
  qmd_p50_ms: 200,
  ratio: 0.5,
  ours_mean_hits: 10,
  qmd_mean_hits: 0.4,
  load_min: 1.2,
  load_max: 2.4,
  machine,
  date: '2026-11-24T00:00:00.000Z',
  command: 'npm run bench:peers -- --qmd PATH --pairs 3 --queries 30',
  ...over,
});

describe('bench:peers', () => {
  it('finds an executable qmd on PATH or at the flag, and nothing where there is none', () => {
    const withQmd = join(dir, 'bin-a');
    const plainFile = join(dir, 'bin-b');
    mkdirSync(withQmd);
    mkdirSync(plainFile);
    writeFileSync(join(withQmd, 'qmd'), '#!/bin/sh\n');
    chmodSync(join(withQmd, 'qmd'), 0o755);
    writeFileSync(join(plainFile, 'qmd'), 'not executable');
    chmodSync(join(plainFile, 'qmd'), 0o644);

    expect(findQmd(undefined, [plainFile, withQmd].join(delimiter))).toBe(join(withQmd, 'qmd'));
    expect(findQmd(undefined, plainFile)).toBeNull();
    expect(findQmd(join(withQmd, 'qmd'), '')).toBe(join(withQmd, 'qmd'));
    // A flag names one binary: PATH is not searched behind it.
    expect(findQmd(join(dir, 'missing'), withQmd)).toBeNull();
  });

  it('drops only NODE_EXTRA_CA_CERTS for the second cold pair', () => {
    const env = { PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ca.pem', XDG_CACHE_HOME: '/c' };
    expect(withoutExtraCa(env)).toEqual({ PATH: '/bin', XDG_CACHE_HOME: '/c' });
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/etc/ca.pem');
  });

  it('counts hits in either answer shape', () => {
    expect(hitsIn('{"topic": {}, "results": [{}, {}, {}]}')).toBe(3);
    expect(hitsIn('[{"docid": "#1"}]')).toBe(1);
    expect(hitsIn('[]')).toBe(0);
    expect(hitsIn('not json')).toBe(-1);
    expect(hitsIn('{"other": 1}')).toBe(-1);
  });

  it('takes a question\'s longest word of letters for the one-word cold row, the first of equal length', () => {
    expect(longestWord('0-dimensional biomaterials show inductive properties.')).toBe('biomaterials');
    expect(longestWord('ALDH1 expression is associated with poorer prognosis')).toBe('expression');
    expect(longestWord('Vitamin D3 raises cAMP')).toBe('Vitamin');
  });

  it('reads utime + stime from a /proc stat line, whatever the command name holds', () => {
    expect(cpuTicksOfStat('1234 (node) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 11 0 500 1000 50')).toBe(280);
    expect(cpuTicksOfStat('77 (a) b (c) R 1 77 77 0 -1 0 0 0 0 0 7 5 1 1 20 0 1 0 9 9 9')).toBe(12);
    expect(() => cpuTicksOfStat('garbage')).toThrow(/unreadable/);
    // This very process: a real reading that only grows.
    const before = treeCpuMs(process.pid)!;
    let x = 0;
    for (let i = 0; i < 3e7; i++) x += i % 7;
    expect(x).toBeGreaterThan(0);
    expect(treeCpuMs(process.pid)!).toBeGreaterThanOrEqual(before);
    expect(treeCpuMs(2 ** 22 + 12345)).toBeNull();
  });

  it('one record per measurement: medians, their ratio, peaks, hits, the load range', () => {
    const side = (ms: number[], rssMb: number[], hits: number[], failed = 0) => ({ ms, rssMb, hits, bytes: hits.map((h) => 100 + 50 * h), cpuMs: ms.map((m) => m / 2), failed });
    const r = peerRecord(
      'cold search, 10 hits',
      { ours: side([300, 100, 200], [90, 95.4, 91], [10, 10, 10]), qmd: side([400, 500, 450], [], [0, 1, 2], 1), loads: [2.5, 1.25] },
      { dataset: 'scifact', command: 'cmd', note: 'qmd 2.8.3' },
    );
    expect(r).toMatchObject({ bench: 'peers', mode: 'cold search, 10 hits', runs: 3, ours_p50_ms: 200, qmd_p50_ms: 450, ratio: 0.44, ours_min_ms: 100 });
    expect(r).toMatchObject({ ours_peak_rss_mb: 95, ours_mean_hits: 10, qmd_mean_hits: 1, ours_mean_bytes: 600, qmd_mean_bytes: 150, ours_cpu_ms: 100, qmd_cpu_ms: 225, failed: 1, load_min: 1.25, load_max: 2.5 });
    expect('qmd_peak_rss_mb' in r).toBe(false);
  });

  it('marks issue 15 targets: index ≤ 0.8×, cold ≤ 0.9×, warm 100 hits ≤ 10 ms', () => {
    expect(peersVerdict(peer('index from scratch', { ratio: 0.8 }))!.ok).toBe(true);
    expect(peersVerdict(peer('index from scratch', { ratio: 0.81 }))!.ok).toBe(false);
    expect(peersVerdict(peer('cold search, 10 hits', { ratio: 0.9 }))!.ok).toBe(true);
    expect(peersVerdict(peer('cold search, 10 hits', { ratio: 1.2 }))!.ok).toBe(false);
    expect(peersVerdict(peer('warm MCP, 100 hits', { ours_p50_ms: 10 }))!.ok).toBe(true);
    expect(peersVerdict(peer('warm MCP, 100 hits', { ours_p50_ms: 12 }))!.ok).toBe(false);
    expect(peersVerdict(peer('warm MCP, 10 hits'))).toBeNull();
  });

  it('renders the head-to-head table in measurement order inside the report', () => {
    const records = [peer('warm MCP, 100 hits', { ours_p50_ms: 34.2, ours_mean_bytes: 61_234, qmd_mean_bytes: 480, ours_cpu_ms: 21.4, qmd_cpu_ms: 3.5 }), peer('index from scratch', { ours_p50_ms: 6320, qmd_p50_ms: 9130, ratio: 0.69, ours_peak_rss_mb: 206 }), peer('cold search, 10 hits')];
    const table = peersTable(records);
    const modes = table.split('\n').slice(2).map((l) => l.split(' | ')[1]);
    expect(modes).toEqual(['index from scratch', 'cold search, 10 hits', 'warm MCP, 100 hits']);
    expect(table).toContain('| 6.32 s, 206 MB | 9.13 s | 0.69× | 10 / 0.4 | – / – | – / – | 1.2–2.4 | ≤ 0.8× ✓ |');
    expect(table).toContain('| 34 ms | 200 ms | 0.50×, CPU 6.11× | 10 / 0.4 | 61.2 / 0.48 | 21 / 3.5 |');
    const md = renderReport(records, { source: 'x.json' });
    expect(md).toContain('### Head to head with qmd');
    expect(md).toContain('npm run bench:peers -- --qmd PATH --pairs 3 --queries 30');
    // Without a qmd run there is no section at all (a smoke report shows no empty tables).
    expect(renderReport([], {})).not.toContain('Head to head with qmd');
    expect(peersTable([])).toBe('_No head-to-head records yet (needs a qmd binary)._');
  });

  it('builds the whole-repository corpus from a repository HEAD (regular files only), and finds none where there is none', async () => {
    const src = join(dir, 'src-repo');
    mkdirSync(join(src, 'docs'), { recursive: true });
    writeFileSync(join(src, 'lib.rs'), 'fn main() {}\n');
    writeFileSync(join(src, 'docs', 'guide.md'), '# Guide\n');
    writeFileSync(join(src, 'draft.md'), 'not committed\n');
    symlinkSync('lib.rs', join(src, 'link.rs'));
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: src, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', 'lib.rs', 'docs/guide.md', 'link.rs');
    git('commit', '-q', '-m', 'corpus');
    expect(findRepo(src)).toBe(src);
    expect(findRepo(join(dir, 'nowhere'))).toBeNull();
    expect(findRepo(undefined, join(dir, 'nowhere'))).toBe(existsSync('/work/.mirror/DioxusLabs+dioxus/repo') ? '/work/.mirror/DioxusLabs+dioxus/repo' : null);
    const copy = await repoFromGitHead(join(dir, 'copy'), src, (p) => p.endsWith('.md') || p.endsWith('.rs'), 'test');
    expect(copy.files).toBe(2);
    expect(readdirSync(join(dir, 'copy')).sort()).toEqual(['.git', 'docs', 'lib.rs']);
    expect(readFileSync(join(dir, 'copy', 'docs', 'guide.md'), 'utf8')).toBe('# Guide\n');
  });
});
