import { Args, loadHelpClass } from '@oclif/core';

import { BaseCommand } from '../cli/base.js';
import { unknownCommandError } from '../hooks/command-not-found.js';

interface CommandHelpJson {
  command: string;
  summary?: string;
  description?: string;
  usage: string;
  args: { name: string; description?: string; required: boolean }[];
  flags: { name: string; description?: string; type: string; default?: unknown; options?: readonly string[] }[];
  examples: string[];
}

export default class HelpCommand extends BaseCommand<typeof HelpCommand> {
  static summary = 'Show help for a command or topic (the same as COMMAND --help).';
  static description = 'With --json, a command\'s help as data: summary, description, arguments, flags and examples.';
  static strict = false;
  static args = { command: Args.string({ description: 'Command or topic, words separated by spaces: search, topic create' }) };
  static examples = ['<%= config.bin %> help search', '<%= config.bin %> help topic create', '<%= config.bin %> help index --json'];

  protected async execute(): Promise<unknown> {
    const words = this.positional.filter((w) => !w.startsWith('-'));
    const id = words.join(':');
    const command = id ? this.config.findCommand(id) : undefined;
    if (id && !command && !this.config.findTopic(id)) throw unknownCommandError(words, this.config.commandIDs, this.config.bin);
    if (this.flags.json) {
      const bin = this.config.bin;
      if (command) {
        const out: CommandHelpJson = {
          command: words.join(' '),
          summary: command.summary,
          description: command.description,
          usage: `${bin} ${words.join(' ')}${Object.keys(command.args ?? {}).map((a) => ` [${a.toUpperCase()}]`).join('')} [FLAGS]`,
          args: Object.entries(command.args ?? {}).map(([name, a]) => ({ name, description: a.description, required: Boolean(a.required) })),
          flags: Object.entries(command.flags ?? {}).map(([name, f]) => ({
            name,
            description: f.summary ?? f.description,
            type: f.type === 'boolean' ? 'boolean' : 'value',
            ...(f.default !== undefined && typeof f.default !== 'function' ? { default: f.default } : {}),
            ...(f.type === 'option' && f.options ? { options: f.options } : {}),
          })),
          examples: (Array.isArray(command.examples) ? command.examples : []).map((e) => (typeof e === 'string' ? e : e.command).replace(/<%= config.bin %>/g, bin)),
        };
        return out;
      }
      const prefix = id ? `${id}:` : '';
      return {
        topic: words.join(' ') || null,
        commands: this.config.commands
          .filter((c) => !c.hidden && c.id.startsWith(prefix))
          .map((c) => ({ command: c.id.replace(/:/g, ' '), summary: c.summary ?? '' }))
          .sort((a, b) => a.command.localeCompare(b.command)),
      };
    }
    const Help = await loadHelpClass(this.config);
    await new Help(this.config, this.config.pjson.oclif.helpOptions ?? {}).showHelp(words);
    return undefined;
  }
}
