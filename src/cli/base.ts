/**
 * Every command extends BaseCommand: it owns --json, --root and --input, turns any failure into
 * `{"error": {...}}` (under --json) or one readable line, and sets the exit status from the
 * error's code. We do our own JSON handling instead of oclif's enableJsonFlag because under it a
 * failed command exits with status 1 whatever code its JSON names, and we promise distinct,
 * documented exit statuses.
 */
import { Args, Command, Flags, Interfaces } from '@oclif/core';

import { TkomaError } from '../lib/errors.js';
import type { Progress } from '../lib/progress.js';
import { silentProgress } from '../lib/progress.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import { inFlagTerms, notRepeated } from './failure.js';
import { emitFailure, emitResult, readInput } from './output.js';
import { AUTHOR_FLAG_SPECS, BASE_FLAG_SPECS, type CommandSpec, EMBEDDER_FLAG_SPEC, type FlagSpec, INPUT_FLAG_SPEC } from './spec.js';
import { explainParseError, parseErrorFields, parseWholeNumber } from './values.js';
import { closest } from '../lib/suggest.js';

export { assignDefined } from './output.js';

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>;

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static baseFlags = {
    json: Flags.boolean({ description: BASE_FLAG_SPECS.json.description, helpGroup: 'GLOBAL' }),
    root: Flags.string({ description: BASE_FLAG_SPECS.root.description, helpGroup: 'GLOBAL' }),
  };

  protected flags!: BaseFlags<T>;
  protected args!: Record<string, unknown>;
  /** Positional arguments as parsed (for commands with `strict = false`). */
  protected positional: string[] = [];

  /** The command's work; return the JSON document (also used to render for people). */
  protected abstract execute(): Promise<unknown>;
  /** Human rendering of the result; default pretty JSON. */
  protected renderHuman(result: unknown): string {
    return JSON.stringify(result, null, 2);
  }

  public async run(): Promise<void> {
    let json = this.argv.includes('--json');
    try {
      let parsed;
      try {
        parsed = await this.parse({
          flags: this.ctor.flags,
          baseFlags: (this.ctor as unknown as typeof BaseCommand).baseFlags,
          args: this.ctor.args,
          strict: this.ctor.strict,
        });
      } catch (err) {
        // oclif's parse errors (unknown flag, bad value, missing argument) are usage errors, told
        // in words that keep the reason: "--limit must be a whole number from 1 to 200 (got 'abc')".
        (this as unknown as { parsed: boolean }).parsed = true; // parsed, and refused: no "did not parse" warning
        const names = Object.keys({ ...this.ctor.flags, ...(this.ctor as unknown as typeof BaseCommand).baseFlags });
        const text = String((err as Error).message ?? err);
        const { code, ...details } = parseErrorFields(text);
        throw new TkomaError(code, explainParseError(text, names, closest), details);
      }
      this.flags = parsed.flags as BaseFlags<T>;
      this.args = parsed.args;
      this.positional = (parsed.argv as unknown[]).map(String);
      json = Boolean(this.flags.json);
      const result = await this.execute();
      if (result === undefined) return;
      emitResult(result, json, (r) => this.renderHuman(r), this.exitCodeFor(result));
    } catch (err) {
      const named = inFlagTerms(err, this.argv, Object.keys(this.ctor.flags ?? {}), Object.keys(this.ctor.args ?? {}));
      emitFailure(json ? named : await notRepeated(named), json);
    }
  }

  /** The topic id a user's name for it means (`widgetron` → `topic-widgetron`): what `search` accepts. */
  protected async topicId(root: string, ref: string): Promise<string> {
    const { resolveTopicId } = await import('../lib/topics/resolve.js');
    return resolveTopicId(root, ref);
  }

  /** True when a person can be asked: stdin and stdout are terminals and --json is off. */
  protected canAsk(): boolean {
    return !this.flags.json && Boolean(process.stdin.isTTY) && Boolean(process.stdout.isTTY);
  }

  /** Asks a yes/no question on the terminal (stderr); only "y" or "yes" approve. */
  protected async confirm(question: string): Promise<boolean> {
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(`${question} [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  }

  /** Some successful answers still exit non-zero (approval required). */
  protected exitCodeFor(_result: unknown): number {
    return 0;
  }

  protected root(mustExist = true): string {
    const root = resolveRootPath(this.flags.root);
    return mustExist ? requireRoot(root) : root;
  }

  /** The whole request as JSON from --input '<json>' or --input - (stdin); {} when absent. */
  protected readInput(value: string | undefined): Record<string, unknown> {
    return readInput(value);
  }

  /** Progress on stderr for people (cli/progress.ts); silent under --json. Loaded only by commands that need it. */
  protected async progress(): Promise<Progress> {
    if (this.flags.json) return silentProgress;
    const { terminalProgress } = await import('./progress.js');
    return terminalProgress();
  }
}

export const authorFlags = {
  ghost: Flags.string({ description: AUTHOR_FLAG_SPECS.ghost.description, env: AUTHOR_FLAG_SPECS.ghost.env }),
  model: Flags.string({ description: AUTHOR_FLAG_SPECS.model.description, env: AUTHOR_FLAG_SPECS.model.env }),
};

export const inputFlag = {
  input: Flags.string({ description: INPUT_FLAG_SPEC.description }),
};

export const embedderFlag = {
  embedder: Flags.string({ description: EMBEDDER_FLAG_SPEC.description }),
};

/** oclif flag definitions from plain specs (cli/spec.ts). */
export function oclifFlags<S extends CommandSpec>(spec: S): { [K in keyof S['flags']]: ReturnType<typeof oclifFlag> } {
  const out: Record<string, ReturnType<typeof oclifFlag>> = {};
  for (const [name, f] of Object.entries(spec.flags)) out[name] = oclifFlag(f);
  return out as { [K in keyof S['flags']]: ReturnType<typeof oclifFlag> };
}

// oclif's flag types are precise per kind; the specs are checked by the fast path's parser and
// the command reads its flags through the spec's own interface, so a loose type is enough here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function oclifFlag(f: FlagSpec): any {
  switch (f.type) {
    case 'boolean':
      return Flags.boolean({ description: f.description, default: f.default, allowNo: f.allowNo ?? false });
    case 'integer':
      return wholeNumberFlag({ description: f.description, default: f.default, min: f.min, max: f.max });
    case 'string': {
      const o = { description: f.description, ...(f.options ? { options: [...f.options] } : {}), ...(f.env ? { env: f.env } : {}), ...(f.exclusive ? { exclusive: [...f.exclusive] } : {}) };
      return f.multiple ? Flags.string({ ...o, multiple: true }) : Flags.string(o);
    }
  }
}

/**
 * oclif argument definitions from a plain spec. `ignoreStdin`: oclif would otherwise take a missing
 * argument from piped stdin, so `--input -` lost its document to the argument (and the fast path,
 * which never does that, answered differently).
 */
export function oclifArgs(spec: CommandSpec): Record<string, ReturnType<typeof Args.string>> {
  return Object.fromEntries(spec.args.map((a) => [a.name, Args.string({ description: a.description, required: a.required ?? false, ignoreStdin: true })]));
}

/**
 * A whole-number flag whose bad values keep their reason: "--limit must be a whole number from 1
 * to 200 (got 'abc')" (oclif's own integer flag loses it behind "Parsing --limit").
 */
export function wholeNumberFlag(o: { description: string; default?: number; min?: number; max?: number; env?: string }) {
  return Flags.custom<number>({
    description: o.description,
    ...(o.default !== undefined ? { default: o.default } : {}),
    ...(o.env ? { env: o.env } : {}),
    helpValue: '<n>',
    parse: async (input, _ctx, opts) => parseWholeNumber(opts.name, input, o.min, o.max),
  })();
}
