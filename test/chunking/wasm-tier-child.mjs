/**
 * Child process of wasm-tier.test.ts: parses the same Rust text many times, either through
 * chunkFile (`chunker`: our grammar loading, from the build in dist/, which keeps WebAssembly at
 * V8's baseline tier; `pooled`: the same with tree-sitter's own module compiled as the chunk pool
 * has it, tier-up allowed) or through web-tree-sitter as it comes (`plain`: V8's defaults, which
 * optimise the hot grammar functions with TurboFan). Plain JavaScript without tsx, so that the
 * grammars are the only WebAssembly in the process. Run with `--trace-wasm-compilation-times`:
 * V8 prints a line per compiled function naming its tier, and Node waits for background
 * compiles before it exits, so every compile ever queued is printed.
 * Usage: node --trace-wasm-compilation-times wasm-tier-child.mjs chunker|pooled|plain
 */
import { createRequire } from 'node:module';

const text = Array.from({ length: 200 }, (_, i) => `/// doc ${i}\npub fn f${i}(x: u32) -> u32 {\n    let y = x + ${i};\n    y * 2\n}\n`).join('\n');
const ROUNDS = 5;

if (process.argv[2] === 'chunker' || process.argv[2] === 'pooled') {
  // `pooled`: tree-sitter compiled first as the chunk pool has it compiled (tier-up allowed).
  if (process.argv[2] === 'pooled') (await import('../../dist/lib/chunking/code-grammars.js')).treeSitterModule(true);
  const { chunkFile } = await import('../../dist/lib/chunking/index.js');
  for (let i = 0; i < ROUNDS; i++) await chunkFile(`src/a${i}.rs`, text);
} else {
  const { Language, Parser } = await import('web-tree-sitter');
  await Parser.init();
  const rust = await Language.load(createRequire(import.meta.url).resolve('tree-sitter-wasms/out/tree-sitter-rust.wasm'));
  const parser = new Parser();
  parser.setLanguage(rust);
  for (let i = 0; i < ROUNDS * 4; i++) parser.parse(text)?.delete();
}
