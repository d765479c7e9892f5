import { BaseCommand } from '../../cli/base.js';
import { listTopicIds } from '../../lib/store/topic-files.js';

/** What the completion scripts call to complete `--topic` and topic-id arguments: the ids, one a line. */
export default class CompletionTopics extends BaseCommand<typeof CompletionTopics> {
  static hidden = true;
  static summary = 'List the topic ids of the root, one a line (used by the completion scripts).';
  static examples = ['<%= config.bin %> completion topics', '<%= config.bin %> completion topics --root ./knowledge'];

  protected async execute(): Promise<string[]> {
    return listTopicIds(this.root());
  }

  protected renderHuman(ids: string[]): string {
    return ids.join('\n');
  }
}
