/**
 * The files of an npm package tarball (`.tgz`), read in memory: gunzip with an output cap, then
 * the tar headers (ustar, pax `path`/`size` records, GNU long names). Only regular files come
 * out; links, devices and names that would leave the package folder are listed as skipped, never
 * followed. The first path component (`package/` by npm's convention) is dropped, as npm does.
 *
 * Written here rather than taken from `tar`: that package extracts to disk with its own path
 * rules, and what is wanted is each file's bytes for the same filters and writer as a git source,
 * with nothing written before the filters and caps decide. Pure apart from zlib.
 */
import { gunzipSync } from 'node:zlib';

import { TkomaError } from '../../errors.js';
import { unsafePathReason } from '../../safety/paths.js';

export interface TarFile {
  path: string;
  data: Buffer;
}

export interface TarContents {
  files: TarFile[];
  skipped: { path: string; reason: string; bytes?: number }[];
}

const BLOCK = 512;

function field(h: Buffer, at: number, len: number): string {
  const raw = h.subarray(at, at + len);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul === -1 ? len : nul).toString('utf8');
}

/** A numeric header field: octal text, or GNU base-256 when the high bit of the first byte is set. */
function numberField(h: Buffer, at: number, len: number): number {
  if ((h[at]! & 0x80) !== 0) {
    let n = 0;
    for (let i = at + 1; i < at + len; i++) n = n * 256 + h[i]!;
    return n;
  }
  const s = field(h, at, len).trim();
  return s === '' ? 0 : parseInt(s, 8);
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  return sum === numberField(h, 148, 8);
}

/** pax extended header records: `<len> <key>=<value>\n`. */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const sp = data.indexOf(0x20, at);
    if (sp === -1) break;
    const len = Number(data.toString('ascii', at, sp));
    if (!Number.isSafeInteger(len) || len <= 0 || at + len > data.length) break;
    const rec = data.toString('utf8', sp + 1, at + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out.set(rec.slice(0, eq), rec.slice(eq + 1));
    at += len;
  }
  return out;
}

function malformed(why: string): TkomaError {
  return new TkomaError('FETCH_FAILED', `the package tarball is not a valid .tgz: ${why}`, { reason: 'bad_tarball' });
}

/** The package path of a tar name: first component dropped, `./` and duplicate slashes folded. */
export function packagePath(name: string): string {
  const parts = name.replace(/^\.\/+/, '').split('/');
  return parts.slice(1).filter((p, i, all) => p !== '' || i === all.length - 1).join('/');
}

/**
 * Reads a gzipped tar into its regular files. `maxUnpackedBytes` bounds the decompressed size (a
 * small tarball can inflate to gigabytes); past it the tarball is refused as a whole.
 */
export function readTarball(tgz: Buffer, maxUnpackedBytes: number): TarContents {
  let tar: Buffer;
  try {
    tar = gunzipSync(tgz, { maxOutputLength: maxUnpackedBytes });
  } catch (err) {
    if (err instanceof RangeError || (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new TkomaError('FETCH_FAILED', `the package unpacks to more than ${maxUnpackedBytes} bytes: refused`, { reason: 'too_large' });
    }
    throw malformed((err as Error).message);
  }
  const files = new Map<string, Buffer>();
  const skipped: TarContents['skipped'] = [];
  let longName: string | null = null;
  let pax = new Map<string, string>();
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const h = tar.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break; // end of archive
    if (!checksumOk(h)) throw malformed(`bad header checksum at byte ${at}`);
    const type = String.fromCharCode(h[156]!);
    const size = pax.has('size') ? Number(pax.get('size')) : numberField(h, 124, 12);
    if (!Number.isSafeInteger(size) || size < 0) throw malformed(`bad entry size at byte ${at}`);
    const start = at + BLOCK;
    const end = start + size;
    if (end > tar.length) throw malformed('truncated');
    at = start + Math.ceil(size / BLOCK) * BLOCK;
    const data = tar.subarray(start, end);
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (type === 'g') continue; // global pax header: nothing a reader of names needs
    if (type === 'L') {
      longName = field(data, 0, data.length);
      continue;
    }
    const prefix = field(h, 257, 6) === 'ustar' ? field(h, 345, 155) : '';
    const name = pax.get('path') ?? longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    pax = new Map();
    longName = null;
    const path = packagePath(name);
    if (type === '5' || path === '' || path.endsWith('/')) continue; // folders come with their files
    if (type === '1' || type === '2') {
      skipped.push({ path, reason: 'symlink' });
      continue;
    }
    if (type !== '0' && type !== '\0' && type !== '7') {
      skipped.push({ path, reason: 'special_file' });
      continue;
    }
    if (unsafePathReason(path)) {
      skipped.push({ path, reason: 'unsafe_path', bytes: size });
      continue;
    }
    files.set(path, data); // a later entry of the same name replaces it, as extraction would
  }
  return { files: [...files].map(([path, data]) => ({ path, data })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), skipped };
}
