import { Flags } from '@oclif/core';

import { BaseCommand, embedderFlag } from '../cli/base.js';
import { readConfig } from '../lib/store/config.js';

export default class Watch extends BaseCommand<typeof Watch> {
  static summary = 'Keep the derived index in sync with the files: react to changes, reconcile on an interval.';
  static description = 'Runs until interrupted (SIGINT/SIGTERM). With --json, prints one JSON line per event.';
  static examples = ['<%= config.bin %> watch', '<%= config.bin %> watch --reconcile-seconds 60 --json'];
  static flags = {
    'reconcile-seconds': Flags.integer({ description: 'Full reconciliation interval (default from tkoma-ref.toml, 300).', min: 1 }),
    ...embedderFlag,
  };

  protected async execute(): Promise<undefined> {
    const root = this.root();
    const config = await readConfig(root);
    const { startWatch } = await import('../lib/watch.js');
    const { resolveEmbedder } = await import('../lib/index/service.js');
    const { embedder } = await resolveEmbedder(root, { flag: this.flags.embedder });
    const json = this.flags.json;
    const watcher = await startWatch(root, {
      reconcileSeconds: this.flags['reconcile-seconds'] ?? config.watch.reconcile_seconds,
      embedder,
      onEvent: (e: unknown) => {
        if (json) process.stdout.write(JSON.stringify(e) + '\n');
        else process.stderr.write(`${new Date().toISOString()} ${JSON.stringify(e)}\n`);
      },
    });
    if (!json) process.stderr.write(`Watching ${root} (Ctrl-C to stop)\n`);
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        void watcher.close().then(resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return undefined;
  }
}
