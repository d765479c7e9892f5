import { describe, expect, it } from 'vitest';

import { chunkFile } from '../../src/lib/chunking/index.js';
import { fromWire, toWire } from '../../src/lib/chunking/wire.js';
import type { Chunk } from '../../src/lib/chunking/types.js';
import { FIXTURES } from './fixtures.js';

/** Field order included: a record is written from the chunk's fields as they come. */
const same = (a: Chunk[], b: Chunk[]): void => expect(JSON.stringify(b)).toBe(JSON.stringify(a));

describe('chunks sent between threads', () => {
  it('come back as the chunker made them, for code, prose and line windows', async () => {
    const long = `${'x'.repeat(5000)}\n${'const a = 1;\n'.repeat(400)}`;
    const files: Array<[string, string]> = [
      ...FIXTURES.map((fx): [string, string] => [fx.path, fx.code]),
      ['docs/guide.md', '# Guide\n\nIntro.\n\n## Install\n\n```sh\nnpm i x\n```\n\n'.repeat(60)],
      ['data/big.json', long],
      ['src/min.js', long],
      ['same.txt', 'aaaa\n'.repeat(2000)],
    ];
    for (const [path, text] of files) {
      const chunks = await chunkFile(path, text, { maxChars: 400, minChars: 50 });
      expect(chunks.length).toBeGreaterThan(0);
      const wire = toWire(text, chunks);
      // Offsets, not copies of the texts.
      expect(wire.every((w) => w.at >= 0 && w.text === undefined)).toBe(true);
      same(chunks, fromWire(path, text, structuredClone(wire)));
    }
  });

  it('carries a text that is not a slice of the file as the text itself', () => {
    const chunk: Chunk = { path: 'a.ts', startLine: 1, endLine: 1, role: 'code', title: 't', kind: 'window', language: 'typescript', text: 'not there', hash: 'h', symbol: 's' };
    const wire = toWire('something else', [chunk]);
    expect(wire[0]!.at).toBe(-1);
    same([chunk], fromWire('a.ts', 'something else', wire));
  });
});
