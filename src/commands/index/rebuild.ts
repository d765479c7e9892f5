import { BaseCommand, embedderFlag } from '../../cli/base.js';
import { renderSyncReport, type SyncReportLike } from '../../cli/events.js';

export default class IndexRebuild extends BaseCommand<typeof IndexRebuild> {
  static summary = 'Recreate the derived index (.tkoma/index) from the files; cached embeddings are reused.';
  static description = 'Deletes <root>/.tkoma/index and builds it again from the reference files. Safe at any time: the files are the truth. Prints one line per topic (files, chunks, vectors); --json gives the full report.';
  static examples = ['<%= config.bin %> index rebuild', '<%= config.bin %> index rebuild --embedder use-lite', '<%= config.bin %> index rebuild --embedder none --json'];
  static flags = { ...embedderFlag };

  protected async execute(): Promise<unknown> {
    const { rebuildIndex } = await import('../../lib/vectors/rebuild.js');
    const progress = await this.progress();
    return progress.task('Rebuild index', (update) =>
      rebuildIndex(this.root(), { embedderFlag: this.flags.embedder, onProgress: (e: { topic: string; phase: string; done: number; total: number }) => update(`${e.topic} ${e.phase} ${e.done}/${e.total}`) }),
    );
  }

  protected renderHuman(r: SyncReportLike): string {
    return renderSyncReport(r, 'Rebuilt the index of');
  }
}
