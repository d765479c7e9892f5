// Preloaded with `node --import` by the start-up test: records every module the process resolves
// (ESM through a resolve hook, CommonJS through Module._load) into $TKOMA_TRACE_FILE at exit.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.TKOMA_TRACE_FILE;
const seen = new Set();
register('data:text/javascript,' + encodeURIComponent(`
  export async function resolve(specifier, context, next) {
    const r = await next(specifier, context);
    globalThis.__tkomaPort?.postMessage(r.url);
    return r;
  }
  export function initialize({ port }) { globalThis.__tkomaPort = port; }
`), { parentURL: import.meta.url, data: { port: (globalThis.__ch = new MessageChannel()).port2 }, transferList: [globalThis.__ch.port2] });
globalThis.__ch.port1.on('message', (url) => seen.add(url));
globalThis.__ch.port1.unref();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  seen.add(request);
  return load.call(this, request, parent, isMain);
};
process.on('exit', () => appendFileSync(file, [...seen].join('\n') + '\n'));
