import { Flags } from '@oclif/core';

import { BaseCommand, embedderFlag, wholeNumberFlag } from '../cli/base.js';
import { clock, type EventLike, renderEvent } from '../cli/events.js';
import { eventJson, untilSignal } from '../lib/serve/signals.js';
import { readConfig } from '../lib/store/config.js';

export default class Serve extends BaseCommand<typeof Serve> {
  static summary = 'Keep indexes and the embedding model in memory and answer searches over a local socket.';
  static description = [
    'Runs in the foreground until interrupted (SIGINT/SIGTERM). While it runs, `search` and `topic search` on this root',
    'ask it instead of loading the index themselves (same JSON; --no-server or TKOMA_REF_NO_SERVER=1 to bypass).',
    'The socket is <root>/.tkoma/serve.sock (or a short path in the temp folder for a deep root, recorded in',
    '<root>/.tkoma/serve.json), readable by this user only. It also watches the reference files like `watch`.',
    'Prints one line per event on stderr (with --json, one JSON line per event on stdout).',
  ].join(' ');
  static examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --no-watch', '<%= config.bin %> serve --reconcile-seconds 60 --json > serve.log'];
  static flags = {
    watch: Flags.boolean({
      description: 'Watch the reference files (default); --no-watch re-checks them by stat before every answer instead.',
      default: true,
      allowNo: true,
    }),
    'reconcile-seconds': wholeNumberFlag({ description: 'Full reconciliation interval of the watcher (default from tkoma-ref.toml, 300).', min: 1 }),
    ...embedderFlag,
  };

  protected async execute(): Promise<undefined> {
    const root = this.root();
    const stopped = untilSignal(); // before the slow start: a signal meanwhile still closes cleanly
    const config = await readConfig(root);
    const json = this.flags.json;
    const { startServer } = await import('../lib/serve/server.js');
    const server = await startServer(root, {
      embedderFlag: this.flags.embedder,
      watch: this.flags.watch,
      reconcileSeconds: this.flags['reconcile-seconds'] ?? config.watch.reconcile_seconds,
      onEvent: (e) => {
        if (json) process.stdout.write(JSON.stringify(eventJson(e)) + '\n');
        else if (e.type !== 'file' && e.type !== 'ready') {
          const line = renderEvent(eventJson(e) as EventLike);
          if (line) process.stderr.write(`${clock(new Date())} ${line}\n`);
        }
      },
    });
    if (!json) process.stderr.write(`Serving ${root} on ${server.socket} (Ctrl-C to stop)\n`);
    await stopped;
    await server.close();
    return undefined;
  }
}
