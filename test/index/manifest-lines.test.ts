import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ManifestLines, manifestLinesFile, refreshManifestLines } from '../../src/lib/index/manifest-lines.js';
import { ManifestLookup } from '../../src/lib/store/manifest-lookup.js';
import { MANIFEST_FILE, parseManifestLine } from '../../src/lib/store/topic-files.js';
import { makeTmpRoot } from '../helpers/index-topics.js';

const rec = (path: string, bytes: number): string =>
  JSON.stringify({ path, source_url: 'https://example.com/x', role: 'docs', bytes, sha256: 'a'.repeat(64), fetched_at: '2026-01-01T00:00:00.000Z' });

describe('manifest line index', () => {
  let root: string;
  let cleanup: () => void;
  let dir: string;
  beforeEach(() => {
    ({ root, cleanup } = makeTmpRoot());
    dir = join(root, 'references', 'topic-m');
    mkdirSync(dir, { recursive: true });
  });
  afterEach(() => cleanup());

  const write = (lines: string[]): void => writeFileSync(join(dir, MANIFEST_FILE), lines.join('\n') + '\n');
  const paths = ['a.md', 'docs/é "q".md', 'z.md', 'twice.md', 'gone.md', 'b\nc.md'];

  it('gives every path the record a whole read of the manifest gives it', async () => {
    // A path twice (the last valid line wins), a damaged line, an invalid later line for a path.
    write([rec('z.md', 1), rec('twice.md', 1), '{"path": broken', rec('a.md', 2), rec('twice.md', 2), rec('docs/é "q".md', 3), '{"path":"a.md"}x', rec('b\nc.md', 4)]);
    await refreshManifestLines(root, 'topic-m', dir, 0);
    const lines = ManifestLines.open(root, 'topic-m', dir)!;
    const whole = new ManifestLookup(readFileSync(join(dir, MANIFEST_FILE)));
    for (const p of paths) expect(lines.get(p), p).toEqual(whole.get(p));
    expect(lines.get('twice.md')!.bytes).toBe(2);
    expect(lines.get('gone.md')).toBeUndefined();
  });

  it('cannot tell once the manifest moved, and a sync-time refresh makes it right again', async () => {
    write([rec('a.md', 1), rec('z.md', 1)]);
    await refreshManifestLines(root, 'topic-m', dir, 0);
    const before = ManifestLines.open(root, 'topic-m', dir)!;
    write([rec('a.md', 5), rec('z.md', 1), rec('new.md', 1)]);
    expect(before.get('a.md')).toBeNull();
    expect(before.get('new.md')).toBeNull();
    await refreshManifestLines(root, 'topic-m', dir, 0);
    const after = ManifestLines.open(root, 'topic-m', dir)!;
    expect(after.get('a.md')!.bytes).toBe(5);
    expect(after.get('new.md')!.path).toBe('new.md');
  });

  it('is not written for a small manifest, and goes when its manifest shrinks', async () => {
    write([rec('a.md', 1), rec('z.md', 1)]);
    await refreshManifestLines(root, 'topic-m', dir, 0);
    expect(ManifestLines.open(root, 'topic-m', dir)).not.toBeNull();
    await refreshManifestLines(root, 'topic-m', dir);
    expect(ManifestLines.open(root, 'topic-m', dir)).toBeNull();
  });

  it('is not used when damaged', async () => {
    write([rec('a.md', 1)]);
    await refreshManifestLines(root, 'topic-m', dir, 0);
    const file = manifestLinesFile(root, 'topic-m');
    writeFileSync(file, readFileSync(file).subarray(0, 30));
    expect(ManifestLines.open(root, 'topic-m', dir)).toBeNull();
    await refreshManifestLines(root, 'topic-m', dir, 0);
    expect(ManifestLines.open(root, 'topic-m', dir)!.get('a.md')!.bytes).toBe(1);
  });

  it('answers alike by position and, after many lookups, from the whole index', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `docs/page-${String(i).padStart(3, '0')}.md`);
    write(many.map((p, i) => rec(p, i)));
    await refreshManifestLines(root, 'topic-m', dir, 0);
    const lines = ManifestLines.open(root, 'topic-m', dir)!;
    const whole = new ManifestLookup(readFileSync(join(dir, MANIFEST_FILE)));
    // Three rounds: the first 64 lookups read by position, the rest from the index read whole.
    for (let round = 0; round < 3; round++) {
      for (const p of [...many.filter((_, i) => i % 7 === round), 'docs/absent.md', 'a']) expect(lines.get(p), p).toEqual(whole.get(p));
    }
    expect(lines.get('docs/page-123.md')!.bytes).toBe(123);
  });

  it('cannot tell, and does not throw, when its path table points past its end', async () => {
    write(['a.md', 'b.md', 'c.md'].map((p) => rec(p, 1)));
    await refreshManifestLines(root, 'topic-m', dir, 0);
    const file = manifestLinesFile(root, 'topic-m');
    const bytes = readFileSync(file);
    // The second path's start (header 40 bytes, then 12 bytes per entry) far past the file.
    bytes.writeUInt32LE(0xfffffff0, 40 + 3 * 12 + 4);
    writeFileSync(file, bytes);
    expect(ManifestLines.open(root, 'topic-m', dir)!.get('b.md')).toBeNull();
  });

  it('is the bytes a whole read gives, read a piece at a time', async () => {
    // Lines across the 1 MiB pieces, one line longer than a piece, 2- to 4-byte characters, a
    // lone surrogate (keys then sorted as bytes), a damaged line, and no newline at the end.
    const lines: string[] = [];
    for (let i = 0; i < 9000; i++) lines.push(rec(`d-${(i * 7919) % 9000}/Größe-東京-${i}.md`, i));
    lines.splice(4000, 0, rec(`long-${'x'.repeat(1_300_000)}.md`, 1), '{"path": broken');
    // A 4-byte character sorts after U+E000 as bytes, before it as UTF-16.
    lines.push(rec('😀-emoji.md', 2), rec('\ue000-private.md', 3), rec('\ud800-lone.md', 4), rec('d-0/Größe-東京-0.md', 99));
    writeFileSync(join(dir, MANIFEST_FILE), lines.join('\n'));
    await refreshManifestLines(root, 'topic-m', dir, 0);
    expect(readFileSync(manifestLinesFile(root, 'topic-m')).equals(wholeReadIndex(readFileSync(join(dir, MANIFEST_FILE)), join(dir, MANIFEST_FILE)))).toBe(true);
    expect(ManifestLines.open(root, 'topic-m', dir)!.get('d-0/Größe-東京-0.md')!.bytes).toBe(99);

    // Without a surrogate the keys are sorted as strings: the same bytes.
    writeFileSync(join(dir, MANIFEST_FILE), lines.slice(0, -4).join('\n') + '\n');
    await refreshManifestLines(root, 'topic-m', dir, 0);
    expect(readFileSync(manifestLinesFile(root, 'topic-m')).equals(wholeReadIndex(readFileSync(join(dir, MANIFEST_FILE)), join(dir, MANIFEST_FILE)))).toBe(true);
  });
});

/** The index as it was made from the whole manifest in memory (before it was read in pieces). */
function wholeReadIndex(bytes: Buffer, file: string): Buffer {
  const st = statSync(file);
  const last = new Map<string, [number, number]>();
  for (let at = 0; at < bytes.length; ) {
    const nl = bytes.indexOf(10, at);
    const end = nl === -1 ? bytes.length : nl;
    const r = parseManifestLine(bytes.toString('utf8', at, end));
    if (r) last.set(r.path, [at, end - at]);
    at = end + 1;
  }
  const entries = [...last].map(([path, place]) => ({ key: Buffer.from(path, 'utf8'), place })).sort((a, b) => Buffer.compare(a.key, b.key));
  const n = entries.length;
  const head = 8 + 3 * 8 + 4 + 4;
  const pathBytes = entries.reduce((s, e) => s + e.key.length, 0);
  const out = Buffer.alloc(head + n * 12 + (n + 1) * 4 + pathBytes);
  out.write('TKML0001', 0, 'latin1');
  out.writeDoubleLE(st.size, 8);
  out.writeDoubleLE(st.mtimeMs, 16);
  out.writeDoubleLE(st.ino, 24);
  out.writeUInt32LE(n, 32);
  out.writeUInt32LE(out.length, 36);
  let p = head + n * 12 + (n + 1) * 4;
  entries.forEach((e, i) => {
    out.writeDoubleLE(e.place[0], head + i * 8);
    out.writeUInt32LE(e.place[1], head + n * 8 + i * 4);
    out.writeUInt32LE(p - (head + n * 12 + (n + 1) * 4), head + n * 12 + i * 4);
    e.key.copy(out, p);
    p += e.key.length;
  });
  out.writeUInt32LE(pathBytes, head + n * 12 + n * 4);
  return out;
}
