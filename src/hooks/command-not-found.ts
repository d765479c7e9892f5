/**
 * An unknown command: "did you mean `search`?" (the closest command ids of the manifest), as one
 * error line, or `{"error": {"code": "UNKNOWN_COMMAND", …}}` under --json, exit status 2.
 */
import type { Hook } from '@oclif/core';

import { emitFailure } from '../cli/output.js';
import { TkomaError } from '../lib/errors.js';
import { suggestCommands } from '../lib/suggest.js';

/** Pure: the error for a command line whose words (before any flag) name no command. */
export function unknownCommandError(words: readonly string[], commandIds: readonly string[], bin: string): TkomaError {
  const ids = commandIds.filter((id) => !id.startsWith('_')).map((id) => id.replace(/:/g, ' '));
  const typed = words.join(' ');
  if (words.length === 0 || words[0]!.startsWith('-')) {
    return new TkomaError('UNKNOWN_COMMAND', `unknown option ${words[0] ?? ''} before any command: run \`${bin} --help\` for the commands`.replace('option  before', 'option before'), {
      command: typed,
    });
  }
  const near = suggestCommands(words, ids);
  const hint = near.length ? `; did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?` : '';
  return new TkomaError('UNKNOWN_COMMAND', `unknown command \`${typed}\`${hint} (\`${bin} --help\` lists the commands)`, {
    command: typed,
    ...(near.length ? { suggestions: near } : {}),
  });
}

const hook: Hook<'command_not_found'> = async function (opts) {
  // With spaces as separators oclif glues the plain words that follow into the id: `serach:foo`.
  const words = opts.id.split(':');
  const json = process.argv.slice(2).includes('--json');
  emitFailure(unknownCommandError(words, opts.config.commandIDs, opts.config.bin), json);
};

export default hook;
