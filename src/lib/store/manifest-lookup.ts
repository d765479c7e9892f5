/**
 * A topic's manifest answered path by path. A search needs the records of its ten or so hits, but
 * a large topic's manifest is thousands of JSON lines (5 MB at 16k files): parsing all of them was
 * a tenth of a cold search's CPU. A lookup finds the lines that hold the quoted path and parses
 * only those; the answer is the same as the whole manifest's (the last valid line for a path
 * wins), and whatever the quick route cannot settle falls back to parsing everything once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { type FileRecord, MANIFEST_FILE, parseManifestLine } from './topic-files.js';

/** After this many lookups a process clearly answers many queries: parse the manifest whole. */
const LOOKUPS_BEFORE_FULL_PARSE = 64;

export class ManifestLookup {
  private full: Map<string, FileRecord> | null = null;
  private lookups = 0;

  constructor(private readonly text: string) {}

  static async read(dir: string): Promise<ManifestLookup> {
    const text = await readFile(join(dir, MANIFEST_FILE), 'utf8').catch(() => '');
    return new ManifestLookup(text);
  }

  get(path: string): FileRecord | undefined {
    if (this.full) return this.full.get(path);
    if (++this.lookups > LOOKUPS_BEFORE_FULL_PARSE) return this.parseAll().get(path);
    const needle = JSON.stringify(path);
    let found: FileRecord | undefined;
    for (let at = this.text.indexOf(needle); at !== -1; at = this.text.indexOf(needle, at + needle.length)) {
      const start = this.text.lastIndexOf('\n', at) + 1;
      const endNl = this.text.indexOf('\n', at);
      const rec = parseManifestLine(this.text.slice(start, endNl === -1 ? this.text.length : endNl));
      if (rec?.path === path) found = rec;
    }
    // Not found as written: the line may spell the path with escapes; only a full parse can tell.
    return found ?? this.parseAll().get(path);
  }

  private parseAll(): Map<string, FileRecord> {
    if (!this.full) {
      this.full = new Map();
      for (const line of this.text.split('\n')) {
        const rec = parseManifestLine(line);
        if (rec) this.full.set(rec.path, rec);
      }
    }
    return this.full;
  }
}
