/**
 * A topic's manifest answered path by path. A search needs the records of its ten or so hits, but
 * a large topic's manifest is thousands of JSON lines (5 MB at 16k files): parsing all of them was
 * a tenth of a cold search's CPU. A lookup finds the lines that hold the quoted path and parses
 * only those, from the end back, stopping at the first valid one; the answer is the same as the
 * whole manifest's (the last valid line for a path wins), and whatever the quick route cannot
 * settle falls back to parsing everything once.
 *
 * The manifest stays bytes: decoding 1.5 MB of it to a string, and a string search per hit over
 * all of it, cost more than the search itself. Bytes are searched natively; UTF-8 never encodes
 * a newline inside a character, so a line decoded alone reads exactly as it does in the whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { type FileRecord, MANIFEST_FILE, parseManifestLine } from './topic-files.js';

/** After this many lookups a process clearly answers many queries: parse the manifest whole. */
const LOOKUPS_BEFORE_FULL_PARSE = 64;
/**
 * Past this size the manifest is never parsed whole: a warm server kept every record as objects
 * (a 207,713-file topic's 62 MB manifest, several times that in the heap) for ten hits a query.
 */
const FULL_PARSE_MAX_BYTES = 16 * 2 ** 20;
const NEWLINE = 0x0a;

export class ManifestLookup {
  private full: Map<string, FileRecord> | null = null;
  private lookups = 0;
  private readonly bytes: Buffer;

  constructor(text: string | Buffer) {
    this.bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  }

  static async read(dir: string): Promise<ManifestLookup> {
    // Synchronous: the caller waits for it, and 1.5 MB through the thread pool is several round trips.
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, MANIFEST_FILE));
    } catch {
      bytes = Buffer.alloc(0);
    }
    return new ManifestLookup(bytes);
  }

  get(path: string): FileRecord | undefined {
    if (this.full) return this.full.get(path);
    if (++this.lookups > LOOKUPS_BEFORE_FULL_PARSE && this.bytes.length <= FULL_PARSE_MAX_BYTES) return this.parseAll().get(path);
    const bytes = this.bytes;
    const needle = Buffer.from(JSON.stringify(path), 'utf8');
    // From the end: the first line found that is a valid record of the path is the last such line,
    // the one a whole parse keeps, and nothing before it needs reading.
    for (let at = bytes.lastIndexOf(needle); at !== -1; at = at === 0 ? -1 : bytes.lastIndexOf(needle, at - 1)) {
      const start = at === 0 ? 0 : bytes.lastIndexOf(NEWLINE, at - 1) + 1;
      const endNl = bytes.indexOf(NEWLINE, at);
      const rec = parseManifestLine(bytes.toString('utf8', start, endNl === -1 ? bytes.length : endNl));
      if (rec?.path === path) return rec;
      at = start; // the rest of this line was read with it
    }
    // Not found as written: the line may spell the path with escapes; only a full parse can tell.
    return this.parseAll().get(path);
  }

  private parseAll(): Map<string, FileRecord> {
    if (!this.full) {
      this.full = new Map();
      for (const line of this.bytes.toString('utf8').split('\n')) {
        const rec = parseManifestLine(line);
        if (rec) this.full.set(rec.path, rec);
      }
    }
    return this.full;
  }
}
