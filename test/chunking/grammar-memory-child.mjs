/**
 * Child process of grammar-memory.test.ts: cuts one small Kotlin file through chunkFile (the
 * build in dist/: kotlin's grammar file is 4 MB), collects garbage, and prints the bytes of
 * ArrayBuffers still alive and how many chunks the file gave. A fresh process, so nothing else
 * holds buffers. Usage: node --expose-gc grammar-memory-child.mjs
 */
const { chunkFile } = await import('../../dist/lib/chunking/index.js');
const text = Array.from({ length: 40 }, (_, i) => `/** doc ${i} */\nfun f${i}(x: Int): Int {\n    val y = x + ${i}\n    return y * 2\n}\n`).join('\n');
const chunks = await chunkFile('src/Main.kt', text);
globalThis.gc();
process.stdout.write(JSON.stringify({ chunks: chunks.length, arrayBuffers: process.memoryUsage().arrayBuffers }));
