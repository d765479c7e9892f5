import { Args, Flags } from '@oclif/core';

import { assignDefined, BaseCommand, embedderFlag, inputFlag } from '../cli/base.js';
import { paint } from '../cli/render.js';
import { TkomaError } from '../lib/errors.js';
import type { ReferenceSearchResult, SearchMode } from '../lib/search/search.js';

/** Under TKOMA_REF_DEBUG, say on stderr why the answer is computed in this process. */
const debugFallback = (reason: string): void => {
  if (process.env.TKOMA_REF_DEBUG) process.stderr.write(`tkoma-ref: working in-process: ${reason}\n`);
};

export default class Search extends BaseCommand<typeof Search> {
  static summary = 'Search reference files: picks the best topic (or --topic / --all), returns its body and ranked chunks.';
  static description = 'Hybrid BM25 + vectors fused by reciprocal rank, docs boosted over code, obsolete files excluded. JSON: the seed\'s reference_search.';
  static args = { question: Args.string({ description: 'The question' }) };
  static examples = [
    '<%= config.bin %> search "component lifecycle hooks" --topic topic-dioxus-ui --json',
    '<%= config.bin %> search "how do I retry a failed request" --all --limit 5',
  ];
  static flags = {
    ...inputFlag,
    topic: Flags.string({ description: 'Search this topic.' }),
    all: Flags.boolean({ description: 'Search every non-obsolete topic at once.', default: false }),
    limit: Flags.integer({ description: 'Most hits to return.', default: 10, min: 1, max: 200 }),
    'max-chars': Flags.integer({ description: 'Snippet size in characters.', min: 50, max: 20000 }),
    explain: Flags.boolean({ description: 'Show how each score was made.', default: false }),
    mode: Flags.string({ description: 'Ranked lists to use: both fused (hybrid), BM25 only, or vectors only.', options: ['hybrid', 'lexical', 'vector'] }),
    ...embedderFlag,
    server: Flags.boolean({
      description: 'Ask a running `serve`/`watch` process (default); --no-server always works in this process (also TKOMA_REF_NO_SERVER=1).',
      default: true,
      allowNo: true,
    }),
  };

  protected async execute(): Promise<ReferenceSearchResult> {
    const f = this.flags;
    const raw = assignDefined(this.readInput(f.input), { question: this.args.question, topic: f.topic });
    const question = raw.question ?? raw.query;
    if (typeof question !== 'string' || !question.trim()) throw new TkomaError('INVALID_INPUT', 'a question is required', { field: 'question' });
    const topic = raw.topic ?? raw.topic_id;
    if (topic !== undefined && typeof topic !== 'string') throw new TkomaError('INVALID_INPUT', '`topic` must be a topic id', { field: 'topic' });
    if (topic && f.all) throw new TkomaError('INVALID_INPUT', 'give --topic or --all, not both');
    const root = this.root();
    const req = {
      question,
      topic,
      all: f.all || raw.all === true,
      limit: typeof raw.limit === 'number' ? raw.limit : f.limit,
      maxChars: f['max-chars'],
      explain: f.explain,
      embedderFlag: f.embedder,
      mode: (f.mode ?? raw.mode) as SearchMode | undefined,
    };
    // A running `serve`/`watch` answers from memory with the same JSON; otherwise work here.
    const { tryServer } = await import('../lib/serve/client.js');
    const served = f.server ? ((await tryServer(root, 'search', req, { onFallback: debugFallback })) as ReferenceSearchResult | undefined) : undefined;
    const result = served ?? (await (await import('../lib/search/search.js')).searchReferences(root, req));
    if (!result.vector_search.available && !f.json) {
      process.stderr.write(`${paint('yellow', 'Warning')}: vector search unavailable (${result.vector_search.reason}); lexical results only\n`);
    }
    return result;
  }

  protected renderHuman(r: ReferenceSearchResult): string {
    const out: string[] = [];
    if (r.topic) out.push(paint('bold', `${r.topic.title} (${r.topic.topic_id})${r.topic.is_stale ? ' [stale]' : ''}`, process.stdout), '');
    if (r.results.length === 0) out.push('No results.');
    r.results.forEach((h, i) => {
      out.push(
        `${i + 1}. ${paint('cyan', `${h.topic_id}/${h.path}:${h.start_line}-${h.end_line}`, process.stdout)} ${h.role} ${h.score.toFixed(4)}${h.file_status !== 'active' ? ` [${h.file_status}]` : ''}`,
        `   ${h.symbol ?? h.title}`,
        ...h.snippet.split('\n').slice(0, 8).map((l) => `   │ ${l}`),
      );
      if (this.flags.explain && h.explain) out.push(`   explain: ${JSON.stringify(h.explain)}`);
      out.push('');
    });
    return out.join('\n');
  }
}
