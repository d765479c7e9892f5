// Preloaded with `node --require` by tests that only ask whether a package was loaded at all (oclif):
// records every request Module._load sees into $TKOMA_TRACE_FILE at exit. Unlike trace-imports.mjs it
// registers no ES module hook, whose loader thread costs ~150 ms of CPU a call here; a CommonJS
// package imported from ES code (bin/run.cjs's `import('@oclif/core')`) still passes Module._load.
'use strict';
const { appendFileSync } = require('node:fs');
const Module = require('node:module');

const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  seen.add(request);
  return load.call(this, request, parent, isMain);
};
process.on('exit', () => appendFileSync(process.env.TKOMA_TRACE_FILE, [...seen].join('\n') + '\n'));
