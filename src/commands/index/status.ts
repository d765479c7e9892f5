import { BaseCommand } from '../../cli/base.js';

export default class IndexStatus extends BaseCommand<typeof IndexStatus> {
  static summary = 'Files, chunks, vectors, embedder and pending work of the derived index.';
  static description = 'Pending work is what the next sync (any search, `watch`, or `index rebuild`) would redo: files added, changed or removed since the index was built.';
  static examples = ['<%= config.bin %> index status', '<%= config.bin %> index status --json'];

  protected async execute(): Promise<unknown> {
    const { indexStatus } = await import('../../lib/index/service.js');
    return indexStatus(this.root());
  }

  protected renderHuman(s: Record<string, unknown>): string {
    return Object.entries(s)
      .map(([k, v]) => `${k.padEnd(14)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
      .join('\n');
  }
}
