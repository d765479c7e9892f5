/**
 * Flags described as plain data, with no oclif import. The oclif command definitions are made
 * from these (cli/base.ts), and the start-up fast path (cli/fast.ts) parses with the same
 * descriptions, so a flag is defined once for both.
 */
export type FlagSpec =
  | { type: 'boolean'; description: string; default?: boolean; allowNo?: boolean }
  | { type: 'string'; description: string; options?: readonly string[] }
  | { type: 'integer'; description: string; default?: number; min?: number; max?: number };

export interface CommandSpec {
  args: readonly { name: string; description: string }[];
  flags: Record<string, FlagSpec>;
}

/** --json and --root: every command has them (BaseCommand.baseFlags). */
export const BASE_FLAG_SPECS = {
  json: { type: 'boolean', description: 'Print exactly one JSON document on stdout.' },
  root: { type: 'string', description: 'Knowledge root (default: $TKOMA_REF_ROOT, then $XDG_DATA_HOME/tkoma-ref).' },
} as const satisfies Record<string, FlagSpec>;

export const INPUT_FLAG_SPEC = {
  type: 'string',
  description: "Whole request as JSON ('<json>', or - for stdin) with the JSON field names (topic_id, max_age_days, …) that --json answers use.",
} as const satisfies FlagSpec;

export const EMBEDDER_FLAG_SPEC = {
  type: 'string',
  description: 'Embedder: auto | transformers | use-lite | ollama | openai | none (default: recorded choice).',
} as const satisfies FlagSpec;
