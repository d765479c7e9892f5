import { BaseCommand } from '../cli/base.js';
import { initRoot, type InitResult } from '../lib/store/root.js';

export default class Init extends BaseCommand<typeof Init> {
  static summary = 'Create a knowledge root (a git repository) from the template.';
  static description = 'Idempotent: an existing root is left as it is. Refuses a non-empty folder that is not a root.';
  static examples = ['<%= config.bin %> init', '<%= config.bin %> init --root ./knowledge', 'TKOMA_REF_ROOT=~/kb <%= config.bin %> init --json'];

  protected async execute(): Promise<InitResult> {
    return initRoot(this.root(false));
  }

  protected renderHuman(r: InitResult): string {
    return r.created ? `Created knowledge root ${r.root} (commit ${r.commit?.slice(0, 7)})` : `Knowledge root ${r.root} already exists`;
  }
}
