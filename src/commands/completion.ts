import { Args, type Command } from '@oclif/core';

import { BaseCommand } from '../cli/base.js';
import { type CompletionCommand, completionScript, type Shell, SHELLS } from '../cli/completion.js';
import { EMBEDDER_CHOICES } from '../lib/embedding/index.js';
import { TkomaError } from '../lib/errors.js';

/** Commands whose first argument names a topic. */
const TOPIC_ARG = new Set(['topic show', 'topic update', 'delete', 'refresh']);

/** The manifest's commands as the completion generator wants them (hidden ones left out). */
export function completionCommands(commands: readonly Command.Loadable[]): CompletionCommand[] {
  return commands
    .filter((c) => !c.hidden)
    .map((c) => ({
      id: c.id.replace(/:/g, ' '),
      summary: c.summary ?? (c.description ?? '').split('\n')[0] ?? '',
      hasArgs: Object.keys(c.args ?? {}).length > 0 || c.strict === false,
      ...(TOPIC_ARG.has(c.id.replace(/:/g, ' ')) ? { topicArg: true } : {}),
      flags: Object.entries(c.flags ?? {})
        .filter(([, f]) => !f.hidden)
        .map(([name, f]) => ({
          name,
          description: f.summary ?? f.description ?? '',
          takesValue: f.type === 'option',
          ...(f.type === 'option' && f.options ? { options: f.options } : name === 'embedder' && f.type === 'option' ? { options: EMBEDDER_CHOICES } : {}),
          ...(name === 'topic' && f.type === 'option' ? { topicIds: true } : {}),
          ...(f.type === 'boolean' && f.allowNo ? { allowNo: true } : {}),
        })),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

export default class Completion extends BaseCommand<typeof Completion> {
  static summary = 'Print a shell completion script for bash, zsh or fish.';
  static description =
    'The script is generated from the installed command manifest, so it completes every command, topic and flag of this version. Load it once per shell session with eval, or install it where your shell looks for completions.';
  static args = { shell: Args.string({ description: `Shell: ${SHELLS.join(' | ')}`, required: true, options: [...SHELLS] }) };
  static examples = [
    `<%= config.bin %> completion bash > ~/.local/share/bash-completion/completions/<%= config.bin %>`,
    `echo 'eval "$(<%= config.bin %> completion zsh)"' >> ~/.zshrc`,
    `<%= config.bin %> completion fish > ~/.config/fish/completions/<%= config.bin %>.fish`,
  ];

  protected async execute(): Promise<{ shell: Shell; script: string }> {
    const shell = String(this.args.shell) as Shell;
    if (!SHELLS.includes(shell)) throw new TkomaError('INVALID_ENUM', `shell must be one of ${SHELLS.join(', ')} (got '${shell}')`, { allowed: SHELLS });
    const topics = Object.fromEntries(this.config.topics.map((t) => [t.name.replace(/:/g, ' '), (t.description ?? '').split('\n')[0] ?? '']));
    return { shell, script: completionScript(shell, this.config.bin, completionCommands(this.config.commands), topics) };
  }

  protected renderHuman(r: { script: string }): string {
    return r.script;
  }
}
