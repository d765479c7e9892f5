/**
 * Start-up fast path for the commands agents call most (cli/fast-names.ts lists them): they run
 * without loading oclif, which costs ~150–200 ms of a ~350 ms start on this machine. The flags are
 * parsed from the same plain specs the oclif command is built from; anything unusual (help, an
 * unknown or repeated flag, a value out of range) is left to oclif, so usage errors and help read
 * exactly as before.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { envFlagOr } from '../lib/settings.js';

import { fastCommand } from './fast-names.js';
import { SHARED, type SharedCommand } from './fast-shared.js';
import { BASE_FLAG_SPECS, type CommandSpec, type FlagSpec, INIT_FAST_SPEC, MCP_SPEC, SEARCH_SPEC, TOPIC_LIST_SPEC } from './spec.js';

export interface ParsedArgv {
  flags: Record<string, string | string[] | number | boolean | undefined>;
  args: string[];
}

/**
 * argv parsed by `spec` (plus --json/--root), or null when oclif should handle it. Pure but for
 * reading `env`, where a flag with a variable falls back to it when that is set and not empty
 * (as oclif reads it).
 */
export function parseBySpec(spec: CommandSpec, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParsedArgv | null {
  const all: Record<string, FlagSpec> = { ...BASE_FLAG_SPECS, ...spec.flags };
  const options: Record<string, { type: 'boolean' | 'string'; multiple?: boolean }> = {};
  for (const [name, f] of Object.entries(all)) {
    options[name] = { type: f.type === 'boolean' ? 'boolean' : 'string', ...(f.type === 'string' && f.multiple ? { multiple: true } : {}) };
    if (f.type === 'boolean' && f.allowNo) options[`no-${name}`] = { type: 'boolean' };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true, tokens: true });
  } catch {
    return null;
  }
  const seen = new Set<string>();
  let valued: FlagSpec | undefined; // the last flag that took a value
  for (const t of parsed.tokens ?? []) {
    if (t.kind === 'option-terminator') return null; // oclif reads what follows `--` its own way
    // oclif gives a repeatable flag every word that follows it, up to the next flag, even after a boolean one.
    if (t.kind === 'positional' && valued?.type === 'string' && valued.multiple) return null;
    if (t.kind !== 'option') continue;
    const name = t.name.startsWith('no-') && !Object.hasOwn(all, t.name) ? t.name.slice(3) : t.name;
    const f = all[name];
    if (t.value !== undefined) valued = f;
    if (f?.type === 'string' && f.multiple) continue;
    if (seen.has(name)) return null; // oclif refuses a repeated flag
    seen.add(name);
  }
  if (!spec.variadic && parsed.positionals.length > spec.args.length) return null;
  if (spec.args.some((a, i) => 'required' in a && a.required && parsed.positionals[i] === undefined)) return null;
  const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
  const flags: ParsedArgv['flags'] = {};
  for (const [name, f] of Object.entries(all)) {
    const v = values[name];
    if (f.type === 'boolean') {
      flags[name] = values[`no-${name}`] === true ? false : v === true ? true : (f.default ?? false);
    } else if (f.type === 'integer') {
      if (v === undefined) flags[name] = f.default;
      else {
        if (typeof v !== 'string' || !/^\d{1,9}$/.test(v)) return null;
        const n = Number(v);
        if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) return null;
        flags[name] = n;
      }
    } else if (Array.isArray(v)) {
      if (f.options && v.some((x) => !f.options!.includes(x))) return null;
      flags[name] = v;
    } else {
      if (typeof v === 'string' && f.options && !f.options.includes(v)) return null;
      const fromEnv = 'env' in f && f.env ? env[f.env] || undefined : undefined;
      flags[name] = typeof v === 'string' ? v : fromEnv;
    }
  }
  // oclif refuses a flag given with one it excludes (--body-file with --body).
  for (const [name, f] of Object.entries(all)) if (f.type === 'string' && values[name] !== undefined && f.exclusive?.some((x) => values[x] !== undefined)) return null;
  return { flags, args: parsed.positionals };
}

/** Runs `argv` on the fast path when it can; false means "let oclif run it". */
export async function runFast(argv: readonly string[]): Promise<boolean> {
  const command = fastCommand(argv);
  if (command === null || envFlagOr('noFastPath', true)) return false;
  const { name, rest } = command;
  if (name === 'mcp') return runMcpFast(rest);
  if (name === 'topic-list') return runTopicListFast(rest);
  if (name === 'init') return runInitFast(rest);
  if (name !== 'search') return runSharedFast(SHARED[name]!, rest);
  const parsed = parseBySpec(SEARCH_SPEC, rest);
  if (!parsed) return false;
  await prefetchTopicListing(parsed);
  const { renderSearch, runSearch } = await import('./searching.js');
  const { emitFailure, emitResult } = await import('./output.js');
  const json = parsed.flags.json === true;
  try {
    const result = await runSearch(parsed.flags as unknown as import('./searching.js').SearchFlags, parsed.args[0]);
    emitResult(result, json, (r) => renderSearch(r as typeof result, parsed.flags.explain === true, parsed.flags.context !== undefined));
  } catch (err) {
    emitFailure(err, json);
  }
  return true;
}

/**
 * Start listing in another process now what the check that the files did not move
 * (index/current.ts) will compare, so it finds the listing ready instead of walking the files
 * after the modules have loaded: a named topic's folder, or, for a search that names none (or
 * `--all`), every topic folder at once. A topic given by title, or any other miss, just walks.
 */
async function prefetchTopicListing({ flags }: ParsedArgv): Promise<void> {
  const topic = flags.topic;
  const named = typeof topic === 'string' && topic !== '';
  // Only a folder name is worth a listing; a bad one is refused later, and listing is harmless.
  if (named && (topic.includes('/') || flags.all === true)) return;
  if (!named && flags.input !== undefined) return; // the JSON may name a topic: no guess
  if ((await import('../lib/settings.js')).trickOff('prefetch')) return;
  const [prefetch, { referencesDir, resolveRootPath }, { listTopicIds }, { hotHeadFile }] = await Promise.all([
    import('../lib/index/listing-prefetch.js'),
    import('../lib/store/root-path.js'),
    import('../lib/store/topic-files.js'),
    import('../lib/index/layout.js'),
  ]);
  const root = resolveRootPath(flags.root as string | undefined);
  if (flags.server !== false) {
    // A running server will most likely answer: no listing, no extra process. (The client loads
    // this module anyway.)
    const { serveInfoFile } = await import('../lib/serve/protocol.js');
    if (existsSync(serveInfoFile(root))) return;
  }
  if (named) prefetch.prefetchListing(join(referencesDir(root), topic), prefetch.worthHalves(hotHeadFile(root, topic)));
  else {
    const ids = await listTopicIds(root);
    if (ids.length > 0) prefetch.prefetchListings(ids.map((id) => join(referencesDir(root), id)));
  }
}

async function runTopicListFast(argv: readonly string[]): Promise<boolean> {
  const parsed = parseBySpec(TOPIC_LIST_SPEC, argv);
  if (!parsed) return false;
  const { renderTopicList, runTopicList } = await import('./listing.js');
  const { emitFailure, emitResult } = await import('./output.js');
  const json = parsed.flags.json === true;
  try {
    emitResult(await runTopicList(parsed.flags as import('./listing.js').TopicListFlags), json, (r) => renderTopicList(r as import('./listing.js').TopicListRow[]));
  } catch (err) {
    emitFailure(err, json);
  }
  return true;
}

/** `init --json` (with --root or none): the root as the oclif command makes it (commands/init.ts). */
async function runInitFast(argv: readonly string[]): Promise<boolean> {
  const parsed = parseBySpec(INIT_FAST_SPEC, argv);
  if (!parsed || parsed.flags.json !== true) return false;
  const [{ initRoot, resolveRootPath }, { emitFailure, emitResult }] = await Promise.all([import('../lib/store/root.js'), import('./output.js')]);
  try {
    emitResult(await initRoot(resolveRootPath(parsed.flags.root as string | undefined)), true, () => '');
  } catch (err) {
    emitFailure(err, true);
  }
  return true;
}

async function runMcpFast(argv: readonly string[]): Promise<boolean> {
  const parsed = parseBySpec(MCP_SPEC, argv);
  if (!parsed) return false;
  const { runMcp } = await import('./mcp.js');
  try {
    await runMcp(parsed.flags as unknown as import('./mcp.js').McpFlags);
  } catch (err) {
    const { emitFailure } = await import('./output.js');
    emitFailure(err, parsed.flags.json === true);
  }
  return true;
}

/**
 * A command whose logic both paths share (cli/fast-shared.ts), answered and failed as
 * BaseCommand.run does: errors renamed in flag terms, a warning already shown not repeated.
 */
async function runSharedFast(command: SharedCommand, argv: readonly string[]): Promise<boolean> {
  const parsed = parseBySpec(command.spec, argv);
  if (!parsed || (command.fits && !command.fits(parsed))) return false;
  const [{ emitFailure, emitResult }, { inFlagTerms, notRepeated }] = await Promise.all([import('./output.js'), import('./failure.js')]);
  const json = parsed.flags.json === true;
  try {
    const { result, render, exitCode } = await command.run(parsed);
    emitResult(result, json, render, exitCode);
  } catch (err) {
    const named = inFlagTerms(err, argv, Object.keys(command.spec.flags), command.spec.args.map((a) => a.name));
    emitFailure(json ? named : await notRepeated(named), json);
  }
  return true;
}
