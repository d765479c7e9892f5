import { Flags } from '@oclif/core';

import { BaseCommand, inputFlag } from '../../cli/base.js';
import { paint, table } from '../../cli/render.js';
import { type BrokenListEntry, listTopicsJson, type TopicListEntry } from '../../lib/topics/read.js';

export default class TopicList extends BaseCommand<typeof TopicList> {
  static summary = 'List reference topics with staleness (obsolete ones only with --include-obsolete).';
  static description =
    'With --json: the reference_topic_list array (as the MCP tool answers). A topic whose topic.md does not parse, or whose `id` is not its folder name, is listed last as {"topic_id", "status": "broken", "error": {code, message, file, line}} and reported on stderr.';
  static examples = ['<%= config.bin %> topic list', '<%= config.bin %> topic list --include-obsolete', '<%= config.bin %> topic list --json'];
  static flags = {
    ...inputFlag,
    'include-obsolete': Flags.boolean({ description: 'Also list obsolete topics.', default: false }),
  };

  protected async execute(): Promise<(TopicListEntry | BrokenListEntry)[]> {
    const input = this.readInput(this.flags.input);
    const includeObsolete = this.flags['include-obsolete'] || input.include_obsolete === true;
    const { entries, broken } = await listTopicsJson(this.root(), { includeObsolete });
    for (const b of broken) process.stderr.write(`${paint('yellow', 'Warning')}: ${b.error.message}\n`);
    return entries;
  }

  protected renderHuman(rows: (TopicListEntry | BrokenListEntry)[]): string {
    if (rows.length === 0) return 'No topics yet. Create one with `tkoma-ref topic create`.';
    return table(
      rows.map((r) =>
        'error' in r
          ? { topic_id: r.topic_id, title: `(broken: ${r.error.code})`, status: 'broken', fresh: '', fetched: '', file_count: '', tags: '' }
          : { ...r, fresh: r.is_stale ? 'stale' : 'fresh', fetched: r.fetched_at.slice(0, 10) },
      ),
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
