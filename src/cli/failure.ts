/**
 * A failure in the words of the command line the user typed, shared by BaseCommand (oclif) and the
 * start-up fast path (cli/fast.ts), so an error reads the same whichever path answered.
 */
import { TkomaError } from '../lib/errors.js';

/**
 * Validation speaks the JSON field names (`topic_id`, `max_age_days`). When the user gave flags
 * rather than --input, name the flag instead: "--topic is required". `flags` and `args` are the
 * command's own flag and argument names (not --json/--root). Pure.
 */
export function inFlagTerms(err: unknown, argv: readonly string[], flags: readonly string[], args: readonly string[]): unknown {
  if (!(err instanceof TkomaError) || typeof err.details.field !== 'string' || argv.includes('--input')) return err;
  const field = err.details.field;
  const candidates = [field.replace(/_/g, '-'), field.replace(/_id$/, ''), field.replace(/s$/, '')];
  const flag = candidates.find((c) => flags.includes(c));
  const arg = flag ? undefined : args.find((a) => a === field || `topic_${a}` === field || a === field.replace(/_id$/, ''));
  const name = flag ? `--${flag}` : arg ? `the ${arg.toUpperCase()} argument` : undefined;
  if (!name || !err.message.includes(`\`${field}\``)) return err;
  const message = /,? got undefined$|^`[^`]+` is required$/.test(err.message) ? `${name} is required` : err.message.split(`\`${field}\``).join(name);
  return new TkomaError(err.code, message, err.details);
}

/** An error whose text was already shown as a progress warning points at it instead of repeating it. */
export async function notRepeated(err: unknown): Promise<unknown> {
  if (!(err instanceof TkomaError)) return err;
  const { warned } = await import('./progress.js');
  let message = err.message;
  for (const w of warned) if (w.length > 20 && message.includes(w)) message = message.split(w).join('(see the warning above)');
  return message === err.message ? err : new TkomaError(err.code, message, err.details);
}
