import { Flags } from '@oclif/core';

import { BaseCommand, inputFlag } from '../../cli/base.js';
import { paint, table } from '../../cli/render.js';
import { listTopics, type TopicListEntry } from '../../lib/topics/read.js';
import type { BrokenTopic } from '../../lib/store/topics.js';

export default class TopicList extends BaseCommand<typeof TopicList> {
  static summary = 'List reference topics with staleness (obsolete ones only with --include-obsolete).';
  static description = 'With --json: the reference_topic_list array (as the MCP tool answers). Topics whose topic.md does not parse are reported on stderr (file and line).';
  static examples = ['<%= config.bin %> topic list', '<%= config.bin %> topic list --include-obsolete', '<%= config.bin %> topic list --json'];
  static flags = {
    ...inputFlag,
    'include-obsolete': Flags.boolean({ description: 'Also list obsolete topics.', default: false }),
  };

  private broken: BrokenTopic[] = [];

  protected async execute(): Promise<TopicListEntry[]> {
    const input = this.readInput(this.flags.input);
    const includeObsolete = this.flags['include-obsolete'] || input.include_obsolete === true;
    const { topics, broken } = await listTopics(this.root(), { includeObsolete });
    this.broken = broken;
    for (const b of broken) process.stderr.write(`${paint('yellow', 'Warning')}: ${b.error.message}\n`);
    return topics;
  }

  protected renderHuman(rows: TopicListEntry[]): string {
    if (rows.length === 0) return this.broken.length ? '' : 'No topics yet. Create one with `tkoma-ref topic create`.';
    return table(
      rows.map((r) => ({ ...r, fresh: r.is_stale ? 'stale' : 'fresh', fetched: r.fetched_at.slice(0, 10) })),
      [
        { key: 'topic_id', header: 'ID' },
        { key: 'title', header: 'TITLE', max: 40 },
        { key: 'status', header: 'STATUS' },
        { key: 'fresh', header: 'FRESH' },
        { key: 'fetched', header: 'FETCHED' },
        { key: 'file_count', header: 'FILES' },
        { key: 'tags', header: 'TAGS', max: 30 },
      ],
    );
  }
}
