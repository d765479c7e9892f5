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
function turbofanByModule(mode: 'chunker' | 'pooled' | 'plain'): number[] {
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
  it('chunkFile never has a grammar optimised by TurboFan, where web-tree-sitter as it comes does', () => {
    const plain = turbofanByModule('plain');
    expect(plain).toHaveLength(2); // tree-sitter and the Rust grammar
    expect(plain[1]).toBeGreaterThan(0);
    // A few files (no chunk pool): nothing is optimised, tree-sitter itself neither.
    expect(turbofanByModule('chunker')).toEqual([0, 0]);
  });

  it('has tree-sitter itself optimised, and still not the grammar, once the chunk pool has compiled it', () => {
    const pooled = turbofanByModule('pooled');
    expect(pooled).toHaveLength(2);
    expect(pooled[0]).toBeGreaterThan(0); // tree-sitter's parse loop tiers up
    expect(pooled[1]).toBe(0); // the grammar never does
  });
});
