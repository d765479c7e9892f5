import { BaseCommand, oclifArgs, oclifFlags } from '../../cli/base.js';
import { renderTopicUpdate, runTopicUpdate, type TopicUpdateFlags } from '../../cli/managing.js';
import { TOPIC_UPDATE_SPEC } from '../../cli/spec.js';
import type { UpdateResult } from '../../lib/topics/manage.js';

// The work is in cli/managing.ts, which the start-up fast path runs without oclif.
export default class TopicUpdate extends BaseCommand<typeof TopicUpdate> {
  static summary = 'Update a topic\'s status, max age, body, tags, title or trust score (one commit).';
  static args = oclifArgs(TOPIC_UPDATE_SPEC);
  static examples = [
    '<%= config.bin %> topic update topic-dioxus-ui --status obsolete',
    '<%= config.bin %> topic update dioxus-ui --tag rust --tag ui --max-age-days 60',
    `<%= config.bin %> topic update --input '{"topic_id":"topic-dioxus-ui","max_age_days":60,"tags":["rust","ui"]}' --json`,
  ];
  static flags = oclifFlags(TOPIC_UPDATE_SPEC);

  protected async execute(): Promise<UpdateResult> {
    return runTopicUpdate(this.flags as TopicUpdateFlags, this.args.id as string | undefined);
  }

  protected renderHuman(r: UpdateResult): string {
    return renderTopicUpdate(r);
  }
}
