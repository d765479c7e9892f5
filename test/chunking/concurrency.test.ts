import { expect, it } from 'vitest';
import { chunkFile } from '../../src/lib/chunking/index.js';
import { FIXTURES } from './fixtures.js';

// Its own file, so the grammars are loaded here for the first time, by concurrent calls.
it('gives the same chunks when files of many languages are chunked at once, from a cold start', async () => {
  const opts = { minChars: 0, maxChars: 300 };
  const parallel = await Promise.all([...FIXTURES, ...FIXTURES].map((fx) => chunkFile(fx.path, fx.code, opts)));
  const sequential = [];
  for (const fx of FIXTURES) sequential.push(await chunkFile(fx.path, fx.code, opts));
  expect(sequential.every((chunks) => chunks.some((c) => c.kind !== 'window'))).toBe(true);
  expect(parallel.slice(0, FIXTURES.length)).toEqual(sequential);
  expect(parallel.slice(FIXTURES.length)).toEqual(sequential);
});
