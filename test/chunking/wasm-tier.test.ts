import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

// A plain JavaScript child on the build (npm test builds first): no tsx, whose CommonJS lexer is
// WebAssembly too, so every line of V8's trace is a grammar's.
const CHILD = join(import.meta.dirname, 'wasm-tier-child.mjs');

/** Functions V8 compiled with TurboFan in the child, from its trace. */
function turbofanCompiles(mode: 'chunker' | 'plain'): number {
  const out = execFileSync(process.execPath, ['--trace-wasm-compilation-times', CHILD, mode], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  expect(out).toContain('using Liftoff'); // the trace is there at all
  return out.split('\n').filter((l) => l.includes('using TurboFan')).length;
}

describe('grammars on the baseline WebAssembly tier', () => {
  it('chunkFile never has a grammar optimised by TurboFan, where web-tree-sitter as it comes does on the same text', () => {
    expect(turbofanCompiles('plain')).toBeGreaterThan(0);
    expect(turbofanCompiles('chunker')).toBe(0);
  });
});
