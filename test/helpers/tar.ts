/** Hand-made tar archives for tests: entries npm pack would never make (links, `..`, pax names). */
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  name: string;
  data?: string | Buffer;
  /** '0' file (default), '2' symlink, '1' hard link, '5' folder, 'x' pax header for the next entry. */
  type?: string;
  linkname?: string;
}

function header(name: string, size: number, type: string, linkname = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 100), 0, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write(linkname, 157);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/** A pax record `<len> key=value\n`, its length counting itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

export function makeTar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.type === 'x' ? Buffer.from(paxRecord('path', String(e.data))) : Buffer.from(e.data ?? '');
    parts.push(header(e.name, data.length, e.type ?? '0', e.linkname));
    parts.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export const makeTgz = (entries: TarEntry[]): Buffer => gzipSync(makeTar(entries));
