import { Args, Flags } from '@oclif/core';

import { authorFlags, BaseCommand, embedderFlag } from '../cli/base.js';
import { table } from '../cli/render.js';
import { asTkomaError, EXIT } from '../lib/errors.js';
import { type RefreshResult, refreshTopic, selectTopicsToRefresh } from '../lib/topics/refresh.js';
import { validateTopicIdField } from '../lib/topics/request.js';

interface RefreshOutput {
  topics: (RefreshResult | { topic_id: string; error: { code: string; message: string } })[];
}

export default class Refresh extends BaseCommand<typeof Refresh> {
  static summary = 'Re-fetch tracked sources (same ref; pinned commits stay), apply changes, reindex: one commit per topic.';
  static strict = false;
  static args = { ids: Args.string({ description: 'Topic ids' }) };
  static examples = ['<%= config.bin %> refresh topic-dioxus-ui', '<%= config.bin %> refresh --stale', '<%= config.bin %> refresh --all --json'];
  static flags = {
    stale: Flags.boolean({ description: 'Refresh every stale topic.', default: false }),
    all: Flags.boolean({ description: 'Refresh every non-obsolete topic.', default: false }),
    ...authorFlags,
    ...embedderFlag,
  };

  protected async execute(): Promise<RefreshOutput> {
    const root = this.root();
    const ids: string[] = [];
    for (const id of this.positional) ids.push(validateTopicIdField(await this.topicId(root, id)));
    const selected = await selectTopicsToRefresh(root, { ids, stale: this.flags.stale, all: this.flags.all });
    const progress = await this.progress();
    const out: RefreshOutput = { topics: [] };
    for (const id of selected) {
      try {
        out.topics.push(await refreshTopic(root, id, { author: { ghost: this.flags.ghost, model: this.flags.model }, progress, embedderFlag: this.flags.embedder }));
      } catch (err) {
        const e = asTkomaError(err);
        // With one named topic the failure is the answer; with several, report it and go on.
        if (selected.length === 1) throw e;
        out.topics.push({ topic_id: id, error: { code: e.code, message: e.message } });
      }
    }
    if (out.topics.some((t) => 'error' in t)) process.exitCode = EXIT.SOURCE_FAILED;
    return out;
  }

  protected renderHuman(r: RefreshOutput): string {
    if (r.topics.length === 0) return 'Nothing to refresh.';
    return table(
      r.topics.map((t) =>
        'error' in t
          ? { topic_id: t.topic_id, result: `failed: ${t.error.message}` }
          : { topic_id: t.topic_id, result: `+${t.added} ~${t.changed} -${t.removed} =${t.unchanged}`, sources: t.sources.map((s) => s.status).join(', '), commit: t.commit?.slice(0, 7) ?? '-' },
      ),
      [
        { key: 'topic_id', header: 'TOPIC' },
        { key: 'result', header: 'FILES (+ ~ - =)', max: 60 },
        { key: 'sources', header: 'SOURCES' },
        { key: 'commit', header: 'COMMIT' },
      ],
    );
  }
}
