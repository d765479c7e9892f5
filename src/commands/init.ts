import { Flags } from '@oclif/core';

import { BaseCommand } from '../cli/base.js';
import { initRoot, type InitResult } from '../lib/store/root.js';

export default class Init extends BaseCommand<typeof Init> {
  static summary = 'Create a knowledge root (a git repository) from the template.';
  static description =
    'Idempotent: an existing root is left as it is. Refuses a non-empty folder that is not a root. --embedder records the embedder (as `index embedder set` does): one that cannot run here exits 8 (EMBEDDER_UNAVAILABLE). Prints the next step: creating a first topic.';
  static examples = ['<%= config.bin %> init', '<%= config.bin %> init --root ./knowledge --json', '<%= config.bin %> init --embedder use-lite'];
  static flags = {
    embedder: Flags.string({ description: 'Record this embedder now: auto | transformers | use-lite | ollama | openai | none.' }),
    'embedder-model': Flags.string({ description: 'Model for --embedder (provider specific).' }),
  };

  protected async execute(): Promise<InitResult & { embedder?: unknown }> {
    const root = this.root(false);
    const result = await initRoot(root);
    if (!this.flags.embedder) return result;
    const { setEmbedder } = await import('../lib/vectors/choice.js');
    const embedder = await setEmbedder(root, { provider: this.flags.embedder, ...(this.flags['embedder-model'] ? { model: this.flags['embedder-model'] } : {}) });
    return { ...result, embedder };
  }

  protected renderHuman(r: InitResult & { embedder?: { recorded: string } }): string {
    const base = r.created ? `Created knowledge root ${r.root} (commit ${r.commit?.slice(0, 7)})` : `Knowledge root ${r.root} already exists`;
    const root = this.flags.root ? ` --root ${JSON.stringify(r.root)}` : '';
    const next = [
      'Next: create a first topic (you are asked before anything is fetched), then search it:',
      `  ${this.config.bin} topic create --title "Zod" --git https://github.com/colinhacks/zod${root}`,
      `  ${this.config.bin} search "how do I validate an email?"${root}`,
    ].join('\n');
    return `${r.embedder ? `${base}; embedder ${r.embedder.recorded}` : base}\n${next}`;
  }
}
