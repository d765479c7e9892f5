/**
 * `mcp` as plain data and one function, shared by the oclif command and the start-up fast path
 * (cli/fast.ts): an agent's client starts the server at every session, and oclif's own start-up
 * was a third of the time to the first tools/list.
 */
import { envSetting } from '../lib/settings.js';
import { untilSignal } from '../lib/serve/signals.js';
import { readConfig } from '../lib/store/config.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';

export interface McpFlags {
  root?: string;
  http?: number;
  serve: boolean;
  'reconcile-seconds'?: number;
  ghost?: string;
  model?: string;
  embedder?: string;
}

/** Runs the MCP server until stdin closes or a signal arrives. */
export async function runMcp(f: McpFlags): Promise<void> {
  const root = requireRoot(resolveRootPath(f.root));
  const stopped = untilSignal();
  // The SDK (and express/hono behind it) is loaded only here, never by other commands; its
  // import starts now so it overlaps reading the config.
  const loading = f.http !== undefined ? import('../lib/mcp/http.js') : import('../lib/mcp/server.js');
  loading.catch(() => undefined);
  const config = await readConfig(root);
  const opts = {
    root,
    embedderFlag: f.embedder,
    author: { ghost: f.ghost ?? envSetting('ghost'), model: f.model ?? envSetting('model') },
    reconcileSeconds: f['reconcile-seconds'] ?? config.watch.reconcile_seconds,
    serveSocket: f.serve,
  };
  if (f.http !== undefined) {
    const { runHttp } = (await loading) as typeof import('../lib/mcp/http.js');
    await runHttp(opts, f.http, stopped);
  } else {
    const { runStdio } = (await loading) as typeof import('../lib/mcp/server.js');
    await runStdio(opts, stopped);
  }
}
