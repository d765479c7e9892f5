/**
 * Every command extends BaseCommand: it owns --json, --root and --input, turns any failure into
 * `{"error": {...}}` (under --json) or one readable line, and sets the exit status from the
 * error's code. We do our own JSON handling instead of oclif's enableJsonFlag because oclif
 * forces exit status 1 on JSON errors (STACK.md) and we promise distinct, documented codes.
 */
import { readFileSync } from 'node:fs';

import { Command, Flags, Interfaces } from '@oclif/core';

import { asTkomaError, TkomaError } from '../lib/errors.js';
import type { Progress } from '../lib/progress.js';
import { silentProgress } from '../lib/progress.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import { paint } from './render.js';

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>;

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static baseFlags = {
    json: Flags.boolean({ description: 'Print exactly one JSON document on stdout.', helpGroup: 'GLOBAL' }),
    root: Flags.string({ description: 'Knowledge root (default: $TKOMA_REF_ROOT, then $XDG_DATA_HOME/tkoma-ref).', helpGroup: 'GLOBAL' }),
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
        // oclif's parse errors (unknown flag, bad option value, missing argument) are usage errors.
        throw new TkomaError('INVALID_INPUT', String((err as Error).message ?? err).split('\n')[0]);
      }
      this.flags = parsed.flags as BaseFlags<T>;
      this.args = parsed.args;
      this.positional = (parsed.argv as unknown[]).map(String);
      json = Boolean(this.flags.json);
      const result = await this.execute();
      if (result === undefined) return;
      if (json) process.stdout.write(JSON.stringify(result) + '\n');
      else process.stdout.write(this.renderHuman(result).replace(/\n?$/, '\n'));
      const exit = this.exitCodeFor(result);
      if (exit !== 0) process.exitCode = exit;
    } catch (err) {
      this.fail(err, json);
    }
  }

  /** Some successful answers still exit non-zero (approval required). */
  protected exitCodeFor(_result: unknown): number {
    return 0;
  }

  private fail(err: unknown, json: boolean): void {
    const e = asTkomaError(err);
    if (json) process.stdout.write(JSON.stringify(e.toJSON()) + '\n');
    else {
      process.stderr.write(`${paint('red', 'Error')} [${e.code}]: ${e.message}\n`);
      if (process.env.TKOMA_REF_DEBUG && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    }
    process.exitCode = e.exitCode;
  }

  protected root(mustExist = true): string {
    const root = resolveRootPath(this.flags.root);
    return mustExist ? requireRoot(root) : root;
  }

  /** The whole request as JSON from --input '<json>' or --input - (stdin); {} when absent. */
  protected readInput(value: string | undefined): Record<string, unknown> {
    if (value === undefined) return {};
    let text = value;
    if (value === '-') {
      try {
        text = readFileSync(0, 'utf8');
      } catch {
        throw new TkomaError('INVALID_JSON', '--input - expects a JSON document on standard input');
      }
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new TkomaError('INVALID_JSON', `--input is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new TkomaError('INVALID_JSON', '--input must be a JSON object');
    return data as Record<string, unknown>;
  }

  /** listr2 progress on stderr for people; silent under --json. Loaded only by commands that need it. */
  protected async progress(): Promise<Progress> {
    if (this.flags.json) return silentProgress;
    const { listrProgress } = await import('./progress.js');
    return listrProgress();
  }
}

/** Adds a value to `target` only when the user gave it (so JSON input is not overwritten by undefined). */
export function assignDefined(target: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(values)) if (v !== undefined) target[k] = v;
  return target;
}

export const authorFlags = {
  ghost: Flags.string({ description: 'Ghost (agent) making the change: the commit author.', env: 'TKOMA_REF_GHOST' }),
  model: Flags.string({ description: 'Model behind the ghost, recorded in the commit author.', env: 'TKOMA_REF_MODEL' }),
};

export const inputFlag = {
  input: Flags.string({ description: "Whole request as JSON ('<json>', or - for stdin) with the seed's field names." }),
};

export const embedderFlag = {
  embedder: Flags.string({ description: 'Embedder: auto | transformers | use-lite | ollama | openai | none (default: recorded choice).' }),
};
