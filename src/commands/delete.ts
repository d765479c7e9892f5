import { Args, Flags } from '@oclif/core';

import { authorFlags, BaseCommand } from '../cli/base.js';
import { EXIT, TkomaError } from '../lib/errors.js';
import { type DeleteResult, deleteTopic } from '../lib/topics/manage.js';
import { readTopic } from '../lib/store/topic-files.js';
import { validateTopicIdField } from '../lib/topics/request.js';
import { countOf } from '../lib/topics/summary.js';

export default class Delete extends BaseCommand<typeof Delete> {
  static summary = 'Delete a topic: its files and index entries, as one commit (history keeps it).';
  static description = `Asks "[y/N]" on a terminal (answering no exits with status ${EXIT.DECLINED}, DECLINED); scripts and ghosts pass --yes (without a terminal and without --yes: CONFIRMATION_REQUIRED, status ${EXIT.INVALID_INPUT}).`;
  static args = { id: Args.string({ description: 'Topic id', required: true }) };
  static examples = ['<%= config.bin %> delete topic-dioxus-ui', '<%= config.bin %> delete dioxus-ui --yes', '<%= config.bin %> delete topic-dioxus-ui --yes --json'];
  static flags = { yes: Flags.boolean({ description: 'Do not ask for confirmation.', default: false }), ...authorFlags };

  protected async execute(): Promise<DeleteResult | undefined> {
    const root = this.root();
    const id = validateTopicIdField(await this.topicId(root, String(this.args.id)));
    if (!this.flags.yes) {
      if (!this.canAsk()) {
        throw new TkomaError('CONFIRMATION_REQUIRED', `deleting ${id} needs --yes (no terminal to ask on)`, { topic_id: id });
      }
      const { front } = await readTopic(root, id);
      if (!(await this.confirm(`Delete topic ${id} (${front.title}, ${countOf(front.files.length, 'file')})?`))) {
        throw new TkomaError('DECLINED', `not deleted: ${id} is unchanged`, { topic_id: id });
      }
    }
    return deleteTopic(root, id, { ghost: this.flags.ghost, model: this.flags.model });
  }

  protected renderHuman(r: DeleteResult): string {
    return `Deleted ${r.topic_id} (${countOf(r.file_count, 'file')}, commit ${r.commit?.slice(0, 7)})`;
  }
}
