import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

// A plain JavaScript child on the build (npm test builds first): no tsx, whose CommonJS lexer is
// WebAssembly too, so every line of V8's trace is tree-sitter's or a grammar's.
const CHILD = join(import.meta.dirname, 'wasm-tier-child.mjs');

/**
 * Per WebAssembly module of the child, in the order V8 first compiled one of its functions (so
 * tree-sitter's own module, which Parser.init runs, comes first): its functions compiled with
 * TurboFan. V8's trace names a module by its address.
 */
function turbofanByModule(mode: 'chunker' | 'plain'): number[] {
  const out = execFileSync(process.execPath, ['--trace-wasm-compilation-times', CHILD, mode], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const modules = new Map<string, number>();
  for (const line of out.split('\n')) {
    const m = /^Compiled function (0x[0-9a-f]+)#\d+ using (Liftoff|TurboFan)/.exec(line);
    if (!m) continue;
    modules.set(m[1]!, (modules.get(m[1]!) ?? 0) + (m[2] === 'TurboFan' ? 1 : 0));
  }
  return [...modules.values()];
}

describe('grammars on the baseline WebAssembly tier', () => {
  it('chunkFile never has a grammar optimised by TurboFan, only tree-sitter itself, where web-tree-sitter as it comes optimises the grammar too', () => {
    const plain = turbofanByModule('plain');
    expect(plain).toHaveLength(2); // tree-sitter and the Rust grammar
    expect(plain[1]).toBeGreaterThan(0);
    const chunker = turbofanByModule('chunker');
    expect(chunker).toHaveLength(2);
    expect(chunker[0]).toBeGreaterThan(0); // tree-sitter's parse loop tiers up
    expect(chunker[1]).toBe(0); // the grammar never does
  });
});
