import { Args, Flags } from '@oclif/core';

import { authorFlags, BaseCommand } from '../cli/base.js';
import { TkomaError } from '../lib/errors.js';
import { type DeleteResult, deleteTopic } from '../lib/topics/manage.js';
import { readTopic } from '../lib/store/topics.js';
import { validateTopicIdField } from '../lib/topics/request.js';
import { countOf } from '../lib/topics/summary.js';

export default class Delete extends BaseCommand<typeof Delete> {
  static summary = 'Delete a topic: its files and index entries, as one commit (history keeps it).';
  static description = 'Asks for confirmation on a terminal; scripts and ghosts pass --yes.';
  static args = { id: Args.string({ description: 'Topic id', required: true }) };
  static examples = ['<%= config.bin %> delete topic-dioxus-ui', '<%= config.bin %> delete dioxus-ui --yes', '<%= config.bin %> delete topic-dioxus-ui --yes --json'];
  static flags = { yes: Flags.boolean({ description: 'Do not ask for confirmation.', default: false }), ...authorFlags };

  protected async execute(): Promise<DeleteResult | undefined> {
    const root = this.root();
    const id = validateTopicIdField(await this.topicId(root, String(this.args.id)));
    if (!this.flags.yes) {
      if (this.flags.json || !process.stdin.isTTY) {
        throw new TkomaError('CONFIRMATION_REQUIRED', `deleting ${id} needs --yes (no terminal to ask on)`, { topic_id: id });
      }
      const { front } = await readTopic(root, id);
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(`Delete topic ${id} (${front.title}, ${countOf(front.files.length, 'file')})? [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        process.stderr.write('Not deleted.\n');
        process.exitCode = 1;
        return undefined;
      }
    }
    return deleteTopic(root, id, { ghost: this.flags.ghost, model: this.flags.model });
  }

  protected renderHuman(r: DeleteResult): string {
    return `Deleted ${r.topic_id} (${countOf(r.file_count, 'file')}, commit ${r.commit?.slice(0, 7)})`;
  }
}
