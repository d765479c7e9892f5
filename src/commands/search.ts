import { BaseCommand, oclifArgs, oclifFlags } from '../cli/base.js';
import { renderSearch, runSearch, SEARCH_SPEC, type SearchFlags } from '../cli/searching.js';
import type { ReferenceSearchResult } from '../lib/search/search.js';

export default class Search extends BaseCommand<typeof Search> {
  static summary = 'Search reference files: picks the best topic (or --topic / --all), returns its body and ranked chunks.';
  static description = 'Hybrid BM25 + vectors fused as a weighted sum of normalised scores, docs boosted over code, obsolete files excluded. With --json: the reference_search answer (topic, results with provenance, vector_search), the same as the MCP tool.';
  static args = oclifArgs(SEARCH_SPEC);
  static examples = [
    '<%= config.bin %> search "component lifecycle hooks" --topic topic-dioxus-ui --json',
    '<%= config.bin %> search "how do I retry a failed request" --all --limit 5',
    '<%= config.bin %> search "BM25 field boost" --topic minisearch --mode lexical --explain',
  ];
  static flags = oclifFlags(SEARCH_SPEC);

  protected async execute(): Promise<ReferenceSearchResult> {
    return runSearch(this.flags as unknown as SearchFlags, this.args.question as string | undefined);
  }

  protected renderHuman(r: ReferenceSearchResult): string {
    return renderSearch(r, Boolean(this.flags.explain), this.flags.context !== undefined);
  }
}
