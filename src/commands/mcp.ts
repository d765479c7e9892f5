import { Flags } from '@oclif/core';

import { authorFlags, BaseCommand, embedderFlag } from '../cli/base.js';
import { runMcp } from '../cli/mcp.js';
import { MCP_SPEC } from '../cli/spec.js';

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
    http: Flags.integer({ description: MCP_SPEC.flags.http.description, min: 1, max: 65535 }),
    serve: Flags.boolean({ description: MCP_SPEC.flags.serve.description, default: true, allowNo: true }),
    'reconcile-seconds': Flags.integer({ description: MCP_SPEC.flags['reconcile-seconds'].description, min: 1 }),
    ...authorFlags,
    ...embedderFlag,
  };

  protected async execute(): Promise<undefined> {
    // The same code as the start-up fast path (cli/fast.ts), which runs `mcp` without oclif.
    await runMcp(this.flags);
    return undefined;
  }
}
