/**
 * A topic's index files as comparable values: what two syncs of the same files must agree on,
 * byte for byte, with the parts that differ run to run (generation numbers, mtimes) left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { topicIndexDir } from '../../src/lib/index/service.js';

export function indexBytes(root: string, topic: string): Record<string, string> {
  const dir = topicIndexDir(root, topic);
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    // Not the chunking's: where each manifest record is, stamped with the manifest's inode and mtime.
    if (name === 'manifest-lines.bin') continue;
    const ext = name.slice(name.lastIndexOf('.') + 1);
    const raw = readFileSync(join(dir, name));
    if (name === 'head.json') {
      const head = JSON.parse(raw.toString('utf8')) as { files: { mtimeMs: number[]; seg: number[]; listing?: string } };
      // The listing digest covers the mtimes too.
      out.files = JSON.stringify({ ...head.files, mtimeMs: head.files.mtimeMs.map(() => 0), seg: head.files.seg.map((g) => (g === 0 ? 0 : 1)), listing: head.files.listing === undefined ? 'none' : 'some' });
    } else if (ext === 'rec') {
      // The records file's header carries the generation (a little-endian f64 at byte 32).
      const copy = Buffer.from(raw);
      copy.writeDoubleLE(0, 32);
      out.rec = copy.toString('base64');
    } else {
      out[ext] = raw.toString('base64');
    }
  }
  return out;
}
