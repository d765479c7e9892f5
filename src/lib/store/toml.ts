/**
 * TOML for the knowledge root's files: the subset tkoma-ref writes is read by toml-subset.ts;
 * anything else, and every write, goes to smol-toml. smol-toml is loaded on first need (its CommonJS
 * build, so synchronous callers can use it too): a search that reads only our own TOML never pays
 * for its nine modules.
 */
import { createRequire } from 'node:module';

import { trickOff } from '../settings.js';
import { parseTomlSubset, type TomlTable } from './toml-subset.js';

type SmolToml = typeof import('smol-toml');

let smol: SmolToml | undefined;

export function smolToml(): SmolToml {
  return (smol ??= createRequire(import.meta.url)('smol-toml') as SmolToml);
}

/**
 * The parsed document, or smol-toml's TomlError for text that is not TOML. The root keys in
 * `lazy` may come back as LineArray (toml-subset.ts) instead of an array of strings.
 */
export function parseToml(text: string, lazy?: ReadonlySet<string>): TomlTable {
  return (trickOff('toml-subset') ? null : parseTomlSubset(text, lazy)) ?? (smolToml().parse(text) as TomlTable);
}
