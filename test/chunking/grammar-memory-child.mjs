/**
 * Child process of grammar-memory.test.ts: cuts one small Kotlin file through chunkFile (the
 * build in dist/: kotlin's grammar file is 4 MB), collects garbage, and prints the bytes of
 * ArrayBuffers still alive and how many chunks the file gave. A fresh process, so nothing else
 * holds buffers. Usage: node --expose-gc grammar-memory-child.mjs BELOW_BYTES
 */
const { chunkFile } = await import('../../dist/lib/chunking/index.js');
const text = Array.from({ length: 40 }, (_, i) => `/** doc ${i} */\nfun f${i}(x: Int): Int {\n    val y = x + ${i}\n    return y * 2\n}\n`).join('\n');
const chunks = await chunkFile('src/Main.kt', text);
// V8 frees dead ArrayBuffers' memory on a background thread after a collection, so the count can
// lag a gc() (seen at load 10): collect and yield until it is under `below`, or 50 rounds.
const below = Number(process.argv[2] ?? 0);
let arrayBuffers = Infinity;
for (let round = 0; round < 50 && !(arrayBuffers < below); round++) {
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 10));
  arrayBuffers = Math.min(arrayBuffers, process.memoryUsage().arrayBuffers);
}
process.stdout.write(JSON.stringify({ chunks: chunks.length, arrayBuffers }));
