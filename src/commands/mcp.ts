import { Flags } from '@oclif/core';

import { authorFlags, BaseCommand, embedderFlag } from '../cli/base.js';
import { untilSignal } from '../lib/serve/signals.js';
import { readConfig } from '../lib/store/config.js';

export default class Mcp extends BaseCommand<typeof Mcp> {
  static summary = 'Run the MCP server: the ghost-facing tools, topics as resources, the skill as a prompt (stdio, or --http PORT).';
  static description = [
    'Speaks the Model Context Protocol on stdin/stdout (nothing else is written to stdout; logs go to stderr) until stdin',
    'closes or SIGINT/SIGTERM. With --http PORT it serves Streamable HTTP at http://127.0.0.1:PORT/mcp instead (loopback',
    'only; Host and Origin are checked against DNS rebinding). Tools: reference_topic_search, reference_topic_list,',
    'reference_topic_create (operator approval by elicitation or token), reference_topic_update, reference_search,',
    'reference_get, reference_file_update. It keeps indexes in memory, watches the files like `watch`, and serves the',
    "root's socket for the CLI when no `serve`/`watch` does.",
  ].join(' ');
  static examples = [
    '<%= config.bin %> mcp',
    '<%= config.bin %> mcp --root ~/kb --ghost ghost-a --model claude-sonnet',
    '<%= config.bin %> mcp --http 8765',
  ];
  static flags = {
    http: Flags.integer({ description: 'Serve Streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio.', min: 1, max: 65535 }),
    serve: Flags.boolean({ description: "Also answer the CLI's searches over the root's socket when nobody else does (default); --no-serve to not.", default: true, allowNo: true }),
    'reconcile-seconds': Flags.integer({ description: 'Full reconciliation interval of the watcher (default from tkoma-ref.toml, 300).', min: 1 }),
    ...authorFlags,
    ...embedderFlag,
  };

  protected async execute(): Promise<undefined> {
    const root = this.root();
    const stopped = untilSignal();
    // The SDK (and express/hono behind it) is loaded only here, never by other commands; its
    // import starts now so it overlaps reading the config.
    const loading = this.flags.http !== undefined ? import('../lib/mcp/http.js') : import('../lib/mcp/server.js');
    loading.catch(() => undefined);
    const config = await readConfig(root);
    const opts = {
      root,
      embedderFlag: this.flags.embedder,
      author: { ghost: this.flags.ghost, model: this.flags.model },
      reconcileSeconds: this.flags['reconcile-seconds'] ?? config.watch.reconcile_seconds,
      serveSocket: this.flags.serve,
    };
    if (this.flags.http !== undefined) {
      const { runHttp } = (await loading) as typeof import('../lib/mcp/http.js');
      await runHttp(opts, this.flags.http, stopped);
    } else {
      const { runStdio } = (await loading) as typeof import('../lib/mcp/server.js');
      await runStdio(opts, stopped);
    }
    return undefined;
  }
}
