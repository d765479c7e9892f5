import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

// Plain JavaScript on the build (npm test builds first), in a fresh process.
const CHILD = join(import.meta.dirname, 'grammar-memory-child.mjs');

describe('grammar files after loading', () => {
  it("are not kept once compiled: kotlin's 4 MB file leaves no buffer alive behind a parse", () => {
    const grammarBytes = statSync(createRequire(import.meta.url).resolve('tree-sitter-wasms/out/tree-sitter-kotlin.wasm')).size;
    expect(grammarBytes).toBeGreaterThan(2 * 2 ** 20); // else this test proves nothing
    const out = JSON.parse(execFileSync(process.execPath, ['--expose-gc', CHILD, String(grammarBytes / 4)], { encoding: 'utf8' })) as { chunks: number; arrayBuffers: number };
    expect(out.chunks).toBeGreaterThan(1); // the grammar loaded and cut the file by its functions
    expect(out.arrayBuffers).toBeLessThan(grammarBytes / 4);
  });
});
