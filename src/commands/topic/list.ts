import { BaseCommand, oclifFlags } from '../../cli/base.js';
import { renderTopicList, runTopicList, type TopicListFlags, type TopicListRow } from '../../cli/listing.js';
import { TOPIC_LIST_SPEC } from '../../cli/spec.js';

// The work is in cli/listing.ts, which the start-up fast path runs without oclif.
export default class TopicList extends BaseCommand<typeof TopicList> {
  static summary = 'List reference topics with staleness (obsolete ones only with --include-obsolete).';
  static description =
    'With --json: the reference_topic_list array (as the MCP tool answers). A topic whose topic.md does not parse, or whose `id` is not its folder name, is listed last as {"topic_id", "status": "broken", "error": {code, message, file, line}} and reported on stderr.';
  static examples = ['<%= config.bin %> topic list', '<%= config.bin %> topic list --include-obsolete', '<%= config.bin %> topic list --json'];
  static flags = oclifFlags(TOPIC_LIST_SPEC);

  protected async execute(): Promise<TopicListRow[]> {
    return runTopicList(this.flags as TopicListFlags);
  }

  protected renderHuman(rows: TopicListRow[]): string {
    return renderTopicList(rows);
  }
}
