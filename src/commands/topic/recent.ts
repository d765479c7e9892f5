import { BaseCommand, wholeNumberFlag } from '../../cli/base.js';
import { recentTopics } from '../../lib/topics/read.js';

export default class TopicRecent extends BaseCommand<typeof TopicRecent> {
  static summary = 'The most recently fetched topics as the markdown block for a ghost\'s prompt.';
  static examples = ['<%= config.bin %> topic recent', '<%= config.bin %> topic recent --limit 5', '<%= config.bin %> topic recent --json'];
  static flags = { limit: wholeNumberFlag({ description: 'How many topics.', default: 10, min: 1, max: 1000 }) };

  protected async execute(): Promise<Awaited<ReturnType<typeof recentTopics>>> {
    return recentTopics(this.root(), this.flags.limit);
  }

  protected renderHuman(r: { markdown: string }): string {
    return r.markdown;
  }
}
