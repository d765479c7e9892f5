import { Flags } from '@oclif/core';

import { BaseCommand, embedderFlag, wholeNumberFlag } from '../cli/base.js';
import { clock, type EventLike, renderEvent } from '../cli/events.js';
import { TkomaError } from '../lib/errors.js';
import { eventJson, untilSignal } from '../lib/serve/signals.js';
import { readConfig } from '../lib/store/config.js';

export default class Watch extends BaseCommand<typeof Watch> {
  static summary = 'Keep the derived index in sync with the files: react to changes, reconcile on an interval.';
  static description =
    'Runs until interrupted (SIGINT/SIGTERM). Prints one line per event on stderr (a change seen, a sync, a reconcile, an error); with --json, one JSON line per event on stdout instead. While it runs it also answers ' +
    '`search` and `topic search` for this root from memory, like `serve` (unless --no-serve or another server already does).';
  static examples = ['<%= config.bin %> watch', '<%= config.bin %> watch --reconcile-seconds 60', '<%= config.bin %> watch --no-serve --json > watch.log'];
  static flags = {
    'reconcile-seconds': wholeNumberFlag({ description: 'Full reconciliation interval (default from tkoma-ref.toml, 300).', min: 1 }),
    serve: Flags.boolean({ description: 'Also answer searches over the local socket (default); --no-serve to only watch.', default: true, allowNo: true }),
    ...embedderFlag,
  };

  protected async execute(): Promise<undefined> {
    const root = this.root();
    const stopped = untilSignal();
    const config = await readConfig(root);
    const json = this.flags.json;
    const reconcileSeconds = this.flags['reconcile-seconds'] ?? config.watch.reconcile_seconds;
    const onEvent = (e: { type: string }): void => {
      if (json) process.stdout.write(JSON.stringify(eventJson(e)) + '\n');
      else {
        const line = renderEvent(eventJson(e) as EventLike);
        if (line) process.stderr.write(`${clock(new Date())} ${line}\n`);
      }
    };

    let close: () => Promise<void>;
    const server = this.flags.serve ? await this.tryServe(root, reconcileSeconds, onEvent) : null;
    if (server) {
      close = server.close;
    } else {
      const { startWatch } = await import('../lib/watch.js');
      // Syncs are lexical; vectors are built by the background builder startWatch keeps going.
      const watcher = await startWatch(root, { reconcileSeconds, embedder: null, onEvent });
      close = () => watcher.close();
    }
    if (!json) process.stderr.write(`Watching ${root}${server ? ` and serving on ${server.socket}` : ''} (Ctrl-C to stop)\n`);
    await stopped;
    await close();
    return undefined;
  }

  /** The server (which watches too), or null when another process already serves this root. */
  private async tryServe(root: string, reconcileSeconds: number, onEvent: (e: { type: string }) => void) {
    const { startServer } = await import('../lib/serve/server.js');
    try {
      return await startServer(root, { embedderFlag: this.flags.embedder, reconcileSeconds, onEvent });
    } catch (err) {
      if (!(err instanceof TkomaError && (err.code === 'LOCKED' || err.code === 'INVALID_PATH'))) throw err;
      onEvent({ type: 'serve-skipped', reason: err.message } as { type: string });
      return null;
    }
  }
}
