/**
 * How a command's answer or failure reaches the user, shared by BaseCommand (oclif) and the
 * start-up fast path: exactly one JSON document under --json, or readable text; one error line
 * (never a stack trace) and the documented exit status.
 */
import { readFileSync } from 'node:fs';

import { asTkomaError, TkomaError } from '../lib/errors.js';
import { envFlagOr } from '../lib/settings.js';
import { paint } from './render.js';

export function emitResult(result: unknown, json: boolean, renderHuman: (r: unknown) => string, exitCode = 0): void {
  if (result === undefined) return;
  if (json) process.stdout.write(JSON.stringify(result) + '\n');
  else process.stdout.write(renderHuman(result).replace(/\n?$/, '\n'));
  if (exitCode !== 0) process.exitCode = exitCode;
}

export function emitFailure(err: unknown, json: boolean): void {
  const e = asTkomaError(err);
  if (json) process.stdout.write(JSON.stringify(e.toJSON()) + '\n');
  else if (e.code === 'DECLINED') {
    // The operator's own "no" at a prompt is an answer, not a failure: said plainly, exit 12 all the same.
    process.stderr.write(`${e.message}\n`);
  } else {
    process.stderr.write(`${paint('red', 'Error')} [${e.code}]: ${e.message}\n`);
    if (envFlagOr('debug', false) && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
  }
  process.exitCode = e.exitCode;
}

/** The whole request as JSON from --input '<json>' or --input - (stdin); {} when absent. */
export function readInput(value: string | undefined): Record<string, unknown> {
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

/** Adds a value to `target` only when the user gave it (so JSON input is not overwritten by undefined). */
export function assignDefined(target: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(values)) if (v !== undefined) target[k] = v;
  return target;
}
