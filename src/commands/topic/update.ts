import { Args, Flags } from '@oclif/core';

import { assignDefined, authorFlags, BaseCommand, inputFlag } from '../../cli/base.js';
import { updateTopic, type UpdateResult } from '../../lib/topics/manage.js';
import { flagNames, validateUpdateRequest } from '../../lib/topics/request.js';

export default class TopicUpdate extends BaseCommand<typeof TopicUpdate> {
  static summary = 'Update a topic\'s status, max age, body, tags, title or trust score (one commit).';
  static args = { id: Args.string({ description: 'Topic id (or topic_id in --input)' }) };
  static examples = [
    '<%= config.bin %> topic update topic-dioxus-ui --status obsolete',
    '<%= config.bin %> topic update dioxus-ui --tag rust --tag ui --max-age-days 60',
    `<%= config.bin %> topic update --input '{"topic_id":"topic-dioxus-ui","max_age_days":60,"tags":["rust","ui"]}' --json`,
  ];
  static flags = {
    ...inputFlag,
    status: Flags.string({ description: 'active | stale | obsolete' }),
    'max-age-days': Flags.integer({ description: 'Days until stale (0 = never).' }),
    'trust-score': Flags.integer({ description: 'Trust score 0-10.' }),
    body: Flags.string({ description: 'New body (markdown).' }),
    title: Flags.string({ description: 'New title.' }),
    tag: Flags.string({ description: 'Replace the tags (repeatable).', multiple: true }),
    ...authorFlags,
  };

  protected async execute(): Promise<UpdateResult> {
    const f = this.flags;
    const raw = assignDefined(this.readInput(f.input), {
      topic_id: this.args.id,
      status: f.status,
      max_age_days: f['max-age-days'],
      trust_score: f['trust-score'],
      body: f.body,
      title: f.title,
      tags: f.tag,
    });
    const names = flagNames(f, { status: 'status', max_age_days: 'max-age-days', trust_score: 'trust-score', body: 'body', title: 'title', tags: 'tag' });
    const root = this.root();
    if (typeof raw.topic_id === 'string') raw.topic_id = await this.topicId(root, raw.topic_id);
    return updateTopic(root, validateUpdateRequest(raw, names), { ghost: f.ghost, model: f.model });
  }

  protected renderHuman(r: UpdateResult): string {
    return r.changed.length ? `Updated ${r.topic_id}: ${r.changed.join(', ')} (commit ${r.commit?.slice(0, 7)})` : `Nothing changed in ${r.topic_id}`;
  }
}
