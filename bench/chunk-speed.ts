/**
 * Chunking speed on this machine: `npx tsx bench/chunk-speed.ts [maxFiles=5000] [root=node_modules]`.
 * Chunks the .ts/.js/.md files under the root (sorted walk, capped) with chunkFile and prints
 * files/s, chunks/s and MB/s, split by kind of file, plus how many code files fell back to windows.
 * Reading files is not timed; grammar loading is (it happens on the first file of each language).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { chunkFile } from '../src/lib/chunking/index.js';

const maxFiles = Number(process.argv[2] ?? 5000);
const root = process.argv[3] ?? join(process.cwd(), 'node_modules');
const EXT = /\.(ts|js|md)$/;
const MAX_BYTES = 1_000_000; // the indexer skips larger files too

function walk(dir: string, out: string[]): void {
  if (out.length >= maxFiles) return;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (out.length >= maxFiles) return;
    const p = join(dir, name);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(p, out);
    else if (EXT.test(name) && !name.endsWith('.d.ts') && st.size > 0 && st.size <= MAX_BYTES) out.push(p);
  }
}

const files: string[] = [];
walk(root, files);
const inputs = files.map((p) => ({ path: relative(root, p), text: readFileSync(p, 'utf8') }));

type Stat = { files: number; chunks: number; chars: number; ms: number; windowed: number };
const stats = new Map<string, Stat>();
const total: Stat = { files: 0, chunks: 0, chars: 0, ms: 0, windowed: 0 };
let maxMs = 0;
let slowest = '';

for (const { path, text } of inputs) {
  const ext = path.slice(path.lastIndexOf('.') + 1);
  const t0 = performance.now();
  const chunks = await chunkFile(path, text);
  const ms = performance.now() - t0;
  if (ms > maxMs) [maxMs, slowest] = [ms, path];
  const windowed = ext !== 'md' && chunks.length > 0 && chunks.every((c) => c.kind === 'window') ? 1 : 0;
  for (const s of [total, stats.get(ext) ?? stats.set(ext, { files: 0, chunks: 0, chars: 0, ms: 0, windowed: 0 }).get(ext)!]) {
    s.files++;
    s.chunks += chunks.length;
    s.chars += text.length;
    s.ms += ms;
    s.windowed += windowed;
  }
}

const line = (name: string, s: Stat): string =>
  `${name.padEnd(6)} ${String(s.files).padStart(5)} files ${String(s.chunks).padStart(7)} chunks ` +
  `${(s.chars / 1e6).toFixed(1).padStart(6)} MB ${(s.ms / 1000).toFixed(2).padStart(7)} s  ` +
  `${((s.files / s.ms) * 1000).toFixed(0).padStart(6)} files/s ${((s.chunks / s.ms) * 1000).toFixed(0).padStart(7)} chunks/s ` +
  `${((s.chars / 1e6 / s.ms) * 1000).toFixed(2).padStart(6)} MB/s  windowed ${s.windowed}`;

console.log(`chunk-speed: ${inputs.length} files under ${root} (cap ${maxFiles}, Node ${process.version})`);
for (const [ext, s] of [...stats].sort()) console.log(line(ext, s));
console.log(line('all', total));
console.log(`slowest file: ${slowest} ${maxMs.toFixed(0)} ms`);
