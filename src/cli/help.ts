/**
 * oclif's help with what a newcomer needs: a five-line "getting started" under the root help,
 * and examples for the topics (`topic`, `index`, `file`), whose descriptions live in
 * package.json (oclif.topics). Loaded only when help is shown.
 */
import { Help, type Interfaces } from '@oclif/core';

export const GETTING_STARTED = [
  '$ tkoma-ref init                                    # create the knowledge root (a git repository)',
  '$ tkoma-ref topic create --title "MiniSearch" --git https://github.com/lucaong/minisearch --yes',
  '$ tkoma-ref topic list                              # what is there, and what is stale',
  '$ tkoma-ref search "how do I boost a field" --topic minisearch',
  '$ tkoma-ref doctor                                  # when something looks wrong',
];

export const TOPIC_EXAMPLES: Record<string, string[]> = {
  topic: [
    '$ tkoma-ref topic list',
    '$ tkoma-ref topic search "Rust GUI framework" --json',
    '$ tkoma-ref topic show topic-dioxus-ui',
  ],
  index: ['$ tkoma-ref index status', '$ tkoma-ref index rebuild', '$ tkoma-ref index status --json'],
  file: ['$ tkoma-ref file status --topic dioxus-ui --path docs/old.md --status obsolete --reason "describes the 0.4 API"'],
};

export default class TkomaHelp extends Help {
  formatRoot(): string {
    return [super.formatRoot(), this.section('GETTING STARTED', GETTING_STARTED.join('\n'))].join('\n\n');
  }

  protected formatTopic(topic: Interfaces.Topic): string {
    const examples = TOPIC_EXAMPLES[topic.name];
    const base = super.formatTopic(topic).replace(/\n$/, '');
    return (examples ? [base, this.section('EXAMPLES', examples.join('\n'))].join('\n\n') : base) + '\n';
  }
}
