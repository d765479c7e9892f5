import { Flags } from '@oclif/core';

import { assignDefined, authorFlags, BaseCommand, inputFlag } from '../../cli/base.js';
import { type FileStatusResult, setFileStatus } from '../../lib/topics/manage.js';
import { flagNames, validateFileStatusRequest } from '../../lib/topics/request.js';

export default class FileStatus extends BaseCommand<typeof FileStatus> {
  static summary = 'Mark a reference file active, problematic or obsolete, with a reason (one commit).';
  static description = 'Problematic files rank lower and are flagged in search; obsolete files never appear in search. Both add a warning line to the topic body.';
  static examples = [
    '<%= config.bin %> file status --topic topic-dioxus-ui --path docs/old.md --status obsolete --reason "describes 0.4 API"',
    '<%= config.bin %> file status --topic dioxus-ui --path examples/broken.rs --status problematic --reason "does not compile"',
    '<%= config.bin %> file status --topic dioxus-ui --path docs/old.md --status active --json',
  ];
  static flags = {
    ...inputFlag,
    topic: Flags.string({ description: 'Topic id.' }),
    path: Flags.string({ description: 'File path inside the topic.' }),
    status: Flags.string({ description: 'active | problematic | obsolete' }),
    reason: Flags.string({ description: 'Why (required unless active).' }),
    ...authorFlags,
  };

  protected async execute(): Promise<FileStatusResult> {
    const f = this.flags;
    const raw = assignDefined(this.readInput(f.input), { topic_id: f.topic, path: f.path, status: f.status, reason: f.reason });
    const names = flagNames(f, { topic_id: 'topic', path: 'path', status: 'status', reason: 'reason' });
    const root = this.root();
    if (typeof raw.topic_id === 'string') raw.topic_id = await this.topicId(root, raw.topic_id);
    return setFileStatus(root, validateFileStatusRequest(raw, names), { ghost: f.ghost, model: f.model });
  }

  protected renderHuman(r: FileStatusResult): string {
    return r.commit ? `Marked ${r.topic_id}/${r.path} ${r.status} (commit ${r.commit.slice(0, 7)})` : `${r.topic_id}/${r.path} is already ${r.status}`;
  }
}
