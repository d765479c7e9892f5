import { Args, Flags } from '@oclif/core';

import { assignDefined, BaseCommand, embedderFlag, inputFlag } from '../../cli/base.js';
import { table } from '../../cli/render.js';
import { TkomaError } from '../../lib/errors.js';

export default class TopicSearch extends BaseCommand<typeof TopicSearch> {
  static summary = 'Find topics by meaning and words (hybrid over title, tags and body).';
  static description = 'JSON: the seed\'s reference_topic_search array (topic_id, title, status, is_stale, fetched_at, tags, score, snippet).';
  static args = { query: Args.string({ description: 'What the topic is about' }) };
  static examples = ['<%= config.bin %> topic search "Rust GUI framework with React-like syntax" --json'];
  static flags = {
    ...inputFlag,
    limit: Flags.integer({ description: 'Most topics to return.', default: 10, min: 1, max: 100 }),
    'include-obsolete': Flags.boolean({ description: 'Also search obsolete topics.', default: false }),
    ...embedderFlag,
  };

  protected async execute(): Promise<unknown> {
    const raw = assignDefined(this.readInput(this.flags.input), { query: this.args.query });
    if (typeof raw.query !== 'string' || !raw.query.trim()) throw new TkomaError('INVALID_INPUT', 'a query is required', { field: 'query' });
    const { searchTopics } = await import('../../lib/search/search.js');
    return searchTopics(this.root(), raw.query, {
      limit: this.flags.limit,
      includeObsolete: this.flags['include-obsolete'] || raw.include_obsolete === true,
      embedderFlag: this.flags.embedder,
    });
  }

  protected renderHuman(rows: { topic_id: string; title: string; score: number; is_stale: boolean; snippet: string }[]): string {
    if (rows.length === 0) return 'No matching topics.';
    return table(
      rows.map((r) => ({ ...r, score: r.score.toFixed(3), stale: r.is_stale ? 'stale' : '' })),
      [
        { key: 'score', header: 'SCORE' },
        { key: 'topic_id', header: 'ID' },
        { key: 'title', header: 'TITLE', max: 40 },
        { key: 'stale', header: '' },
        { key: 'snippet', header: 'SNIPPET', max: 60 },
      ],
    );
  }
}
