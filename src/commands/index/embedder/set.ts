import { Args, Flags } from '@oclif/core';

import { authorFlags, BaseCommand } from '../../../cli/base.js';

export default class IndexEmbedderSet extends BaseCommand<typeof IndexEmbedderSet> {
  static summary = 'Choose (and record, as one commit) the embedder of this knowledge root.';
  static description =
    'The model is started first: one that cannot run here is refused (exit 8, EMBEDDER_UNAVAILABLE) and nothing changes. The current vectors keep serving while the new space is built in the background; each topic switches when its new vectors are complete (two models are never mixed). `none` turns vectors off.';
  static args = { name: Args.string({ description: 'auto | transformers | use-lite | ollama | openai | none', required: true }) };
  static examples = [
    '<%= config.bin %> index embedder set transformers --model Xenova/bge-small-en-v1.5',
    '<%= config.bin %> index embedder set use-lite --chunks on',
    '<%= config.bin %> index embedder set none',
  ];
  static flags = {
    ghost: authorFlags.ghost,
    model: Flags.string({ description: 'Model name (provider specific).' }),
    url: Flags.string({ description: 'Server URL (ollama, openai-compatible).' }),
    chunks: Flags.string({ description: 'Chunk vectors: on, off, or auto (off for use-lite, which does not beat BM25 here).', options: ['on', 'off', 'auto'] }),
  };

  protected async execute(): Promise<unknown> {
    const { setEmbedder } = await import('../../../lib/vectors/choice.js');
    return setEmbedder(
      this.root(),
      {
        provider: this.args.name as string,
        ...(this.flags.model ? { model: this.flags.model } : {}),
        ...(this.flags.url ? { url: this.flags.url } : {}),
        ...(this.flags.chunks ? { chunks: this.flags.chunks as 'on' | 'off' | 'auto' } : {}),
      },
      { author: { ghost: this.flags.ghost } },
    );
  }

  protected renderHuman(r: { recorded: string; previous: string | null; chunk_vectors: boolean; commit: string | null; building?: { pid?: number; reason?: string } }): string {
    const head = r.commit ? `Embedder set to ${r.recorded}${r.previous && r.previous !== r.recorded ? ` (was ${r.previous})` : ''}` : `Embedder already ${r.recorded}`;
    const chunks = r.recorded === 'none' ? 'lexical search only' : r.chunk_vectors ? 'topic notes and chunks get vectors' : 'topic notes get vectors; chunk vectors off';
    const b = r.building?.pid ? `; building in the background (pid ${r.building.pid})` : r.building?.reason ? `; ${r.building.reason}` : '';
    return `${head}: ${chunks}${b}`;
  }
}
