import { BaseCommand, oclifFlags } from '../cli/base.js';
import { type GetFlags, renderGet, runGet } from '../cli/getting.js';
import { GET_SPEC } from '../cli/spec.js';
import type { GetResult } from '../lib/topics/read.js';

// The work is in cli/getting.ts, which the start-up fast path runs without oclif.
export default class Get extends BaseCommand<typeof Get> {
  static summary = 'Get a reference file (or a line range of it) by note id, or by topic and path.';
  static description = 'Note ids are what search hits carry as `id`: <topic-id>/<path>, optionally #L<start>-L<end>. The topic can be named as `search` accepts it (`--topic dioxus-ui`).';
  static examples = [
    '<%= config.bin %> get --topic topic-dioxus-ui --path docs/guide/index.md',
    '<%= config.bin %> get --id topic-dioxus-ui/src/lib.rs#L10-L40 --json',
    '<%= config.bin %> get --topic topic-dioxus-ui --path README.md --start-line 1 --end-line 20 --max-chars 2000',
  ];
  static flags = oclifFlags(GET_SPEC);

  protected async execute(): Promise<GetResult> {
    return runGet(this.flags as GetFlags);
  }

  protected renderHuman(r: GetResult): string {
    return renderGet(r);
  }
}
