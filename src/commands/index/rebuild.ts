import { BaseCommand, embedderFlag } from '../../cli/base.js';

export default class IndexRebuild extends BaseCommand<typeof IndexRebuild> {
  static summary = 'Recreate the derived index (.tkoma/index) from the files; cached embeddings are reused.';
  static examples = ['<%= config.bin %> index rebuild', '<%= config.bin %> index rebuild --embedder use-lite --json'];
  static flags = { ...embedderFlag };

  protected async execute(): Promise<unknown> {
    const { rebuildIndex } = await import('../../lib/index/service.js');
    const progress = await this.progress();
    return progress.task('Rebuild index', (update) =>
      rebuildIndex(this.root(), { embedderFlag: this.flags.embedder, onProgress: (e: { topic: string; phase: string; done: number; total: number }) => update(`${e.topic} ${e.phase} ${e.done}/${e.total}`) }),
    );
  }
}
