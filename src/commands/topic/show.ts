import { Args } from '@oclif/core';

import { BaseCommand } from '../../cli/base.js';
import { table } from '../../cli/render.js';
import { showTopic, type TopicShow } from '../../lib/topics/read.js';

export default class TopicShowCommand extends BaseCommand<typeof TopicShowCommand> {
  static summary = 'Show one topic: metadata, sources, files with their status, and the body.';
  static args = { id: Args.string({ description: 'Topic id', required: true }) };
  static description = 'The topic can be named as `search` accepts it: the id, the id without `topic-`, or the title.';
  static examples = ['<%= config.bin %> topic show topic-dioxus-ui', '<%= config.bin %> topic show dioxus-ui', '<%= config.bin %> topic show topic-dioxus-ui --json'];

  protected async execute(): Promise<TopicShow> {
    const root = this.root();
    return showTopic(root, await this.topicId(root, String(this.args.id)));
  }

  protected renderHuman(t: TopicShow): string {
    const head = [
      `${t.title} (${t.topic_id})`,
      `status ${t.status}${t.is_stale ? ` (stale since ${t.stale_since ?? 'now'})` : ''} · fetched ${t.fetched_at} · max age ${t.max_age_days} days · trust ${t.trust_score}`,
      `tags: ${t.tags.join(', ') || '-'}`,
      ...t.sources.map((s) => s.type === 'npm' ? `source: npm ${s.package}@${s.resolved_version ?? '?'}${s.version && s.version !== s.resolved_version ? ` (follows ${s.version})` : ''}${s.upstream_version ? `, newer upstream: ${s.upstream_version}` : ''}` : `source: ${s.type} ${s.url}${s.version ? ` version ${s.version}` : ''}${s.ref ? ` @${s.ref}` : ''}${s.commit ? ` (${s.commit.slice(0, 7)})` : ''}${s.paths ? ` paths ${s.paths.join(' ')}` : ''}`),
      '',
    ];
    const files = table(t.files as unknown as Record<string, unknown>[], [
      { key: 'path', header: 'FILE', max: 60 },
      { key: 'role', header: 'ROLE' },
      { key: 'bytes', header: 'BYTES' },
      { key: 'status', header: 'STATUS' },
    ]);
    return [...head, files, '', t.body].join('\n');
  }
}
