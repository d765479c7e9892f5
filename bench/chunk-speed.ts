/**
 * Chunking speed on this machine: `npx tsx bench/chunk-speed.ts [maxFiles=5000] [root=node_modules] [--terms PASSES]`.
 * Chunks the .ts/.js/.rs/.md files under the root (sorted walk, capped) with chunkFile and prints
 * files/s, chunks/s and MB/s, split by kind of file, plus how many code files fell back to windows.
 * Reading files is not timed; grammar loading is (it happens on the first file of each language).
 *
 * With --terms, then counts those chunks' BM25 terms as a chunk worker thread does
 * (ChunkTermPacker, a batch of 16 files per take()) PASSES times, each pass with a fresh packer:
 * the first pass is the create's case (cold code), the later ones the steady cost. Prints each
 * pass's time, the allocation seen by the heap between passes, and a digest of every packed
 * batch (what must not change when the counting is made cheaper).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { chunkFile } from '../src/lib/chunking/index.js';
import type { Chunk } from '../src/lib/chunking/types.js';
import { ChunkTermPacker } from '../src/lib/index/chunk-terms.js';

const termsAt = process.argv.indexOf('--terms');
const termPasses = termsAt < 0 ? 0 : Number(process.argv.splice(termsAt, 2)[1] ?? 1);
const maxFiles = Number(process.argv[2] ?? 5000);
const root = process.argv[3] ?? join(process.cwd(), 'node_modules');
const EXT = /\.(ts|js|rs|md)$/;
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

const chunked: { path: string; chunks: Chunk[] }[] = [];
for (const { path, text } of inputs) {
  const ext = path.slice(path.lastIndexOf('.') + 1);
  const t0 = performance.now();
  const chunks = await chunkFile(path, text);
  chunked.push({ path, chunks });
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

/** One pass of a worker's counting over every file; the digest of its packed batches. */
function countPass(): string {
  const packer = new ChunkTermPacker();
  const digest = createHash('sha256');
  const takeBatch = (): void => {
    const { packed } = packer.take();
    digest.update(packed.newTerms);
    for (const a of [packed.newTermEnds, packed.docLen, packed.docTerms, packed.terms, packed.tfs]) digest.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  };
  chunked.forEach(({ path, chunks }, i) => {
    packer.addFile(path, chunks);
    if (i % 16 === 15) takeBatch();
  });
  takeBatch();
  return digest.digest('hex').slice(0, 16);
}

if (termPasses > 0) {
  const n = chunked.reduce((a, f) => a + f.chunks.length, 0);
  console.log(`terms: ${chunked.length} files, ${n} chunks, ${termPasses} passes`);
  for (let p = 0; p < termPasses; p++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const digest = countPass();
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    console.log(`  pass ${p + 1}: ${ms.toFixed(0)} ms wall, ${((c.user + c.system) / 1000).toFixed(0)} ms CPU, digest ${digest}`);
  }
}
