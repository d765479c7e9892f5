import { BaseCommand, oclifFlags } from '../../cli/base.js';
import { type FileStatusFlags, renderFileStatus, runFileStatus } from '../../cli/managing.js';
import { FILE_STATUS_SPEC } from '../../cli/spec.js';
import type { FileStatusResult } from '../../lib/topics/manage.js';

// The work is in cli/managing.ts, which the start-up fast path runs without oclif.
export default class FileStatus extends BaseCommand<typeof FileStatus> {
  static summary = 'Mark a reference file active, problematic or obsolete, with a reason (one commit).';
  static description = 'Problematic files rank lower and are flagged in search; obsolete files never appear in search. Both add a warning line to the topic body.';
  static examples = [
    '<%= config.bin %> file status --topic topic-dioxus-ui --path docs/old.md --status obsolete --reason "describes 0.4 API"',
    '<%= config.bin %> file status --topic dioxus-ui --path examples/broken.rs --status problematic --reason "does not compile"',
    '<%= config.bin %> file status --topic dioxus-ui --path docs/old.md --status active --json',
  ];
  static flags = oclifFlags(FILE_STATUS_SPEC);

  protected async execute(): Promise<FileStatusResult> {
    return runFileStatus(this.flags as FileStatusFlags);
  }

  protected renderHuman(r: FileStatusResult): string {
    return renderFileStatus(r);
  }
}
