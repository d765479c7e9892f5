import { Args, Flags } from '@oclif/core';

import { assignDefined, BaseCommand, embedderFlag, inputFlag, wholeNumberFlag } from '../../cli/base.js';
import { table } from '../../cli/render.js';
import { TkomaError } from '../../lib/errors.js';
import { envFlagOr } from '../../lib/settings.js';

/** Under TKOMA_REF_DEBUG, say on stderr why the answer is computed in this process. */
const debugFallback = (reason: string): void => {
  if (envFlagOr('debug', false)) process.stderr.write(`tkoma-ref: working in-process: ${reason}\n`);
};

export default class TopicSearch extends BaseCommand<typeof TopicSearch> {
  static summary = 'Find topics by meaning and words (hybrid over title, tags and body).';
  static description = 'With --json: the reference_topic_search array (topic_id, title, status, is_stale, fetched_at, tags, score, snippet).';
  static args = { query: Args.string({ description: 'What the topic is about' }) };
  static examples = [
    '<%= config.bin %> topic search "Rust GUI framework with React-like syntax"',
    '<%= config.bin %> topic search "full-text search in the browser" --limit 3 --json',
    '<%= config.bin %> topic search "http client" --include-obsolete',
  ];
  static flags = {
    ...inputFlag,
    limit: wholeNumberFlag({ description: 'Most topics to return.', default: 10, min: 1, max: 100 }),
    'include-obsolete': Flags.boolean({ description: 'Also search obsolete topics.', default: false }),
    ...embedderFlag,
    server: Flags.boolean({
      description: 'Ask a running `serve`/`watch` process (default); --no-server always works in this process (also TKOMA_REF_NO_SERVER=1).',
      default: true,
      allowNo: true,
    }),
  };

  protected async execute(): Promise<unknown> {
    const raw = assignDefined(this.readInput(this.flags.input), { query: this.args.query });
    if (typeof raw.query !== 'string' || !raw.query.trim()) throw new TkomaError('INVALID_INPUT', 'a query is required', { field: 'query' });
    const root = this.root();
    const opts = {
      limit: this.flags.limit,
      includeObsolete: this.flags['include-obsolete'] || raw.include_obsolete === true,
      embedderFlag: this.flags.embedder,
    };
    // A running `serve`/`watch` answers from memory with the same JSON; otherwise work here.
    const { tryServer } = await import('../../lib/serve/client.js');
    const served = this.flags.server ? await tryServer(root, 'topic_search', { query: raw.query, ...opts }, { onFallback: debugFallback }) : undefined;
    if (served !== undefined) return served;
    const { searchTopics } = await import('../../lib/search/search.js');
    return searchTopics(root, raw.query, opts);
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
