/**
 * Flags described as plain data, with no oclif import. The oclif command definitions are made
 * from these (cli/base.ts), and the start-up fast path (cli/fast.ts) parses with the same
 * descriptions, so a flag is defined once for both.
 */
import { settingEnv } from '../lib/settings.js';

export type FlagSpec =
  | { type: 'boolean'; description: string; default?: boolean; allowNo?: boolean }
  | { type: 'string'; description: string; options?: readonly string[]; multiple?: boolean; env?: string; exclusive?: readonly string[] }
  | { type: 'integer'; description: string; default?: number; min?: number; max?: number };

export interface CommandSpec {
  args: readonly { name: string; description: string; required?: boolean }[];
  /** Any number of positional arguments (oclif's `strict = false`), all under the first arg's name. */
  variadic?: boolean;
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

/** --ghost and --model: who makes a change; each falls back to its setting's variable when set and not empty. */
export const AUTHOR_FLAG_SPECS = {
  ghost: { type: 'string', description: 'Ghost (agent) making the change: the commit author.', env: settingEnv('ghost') },
  model: { type: 'string', description: 'Model behind the ghost, recorded in the commit author.', env: settingEnv('model') },
} as const satisfies Record<string, FlagSpec>;

/** `search`: here rather than in searching.ts so the start-up fast path can parse before loading the search code. */
export const SEARCH_SPEC = {
  args: [{ name: 'question', description: 'The question' }],
  flags: {
    input: INPUT_FLAG_SPEC,
    topic: { type: 'string', description: 'Search this topic.' },
    all: { type: 'boolean', description: 'Search every non-obsolete topic at once.', default: false },
    limit: { type: 'integer', description: 'Most hits to return.', default: 10, min: 1, max: 200 },
    'max-chars': { type: 'integer', description: 'Snippet size in characters.', min: 50, max: 20000 },
    explain: { type: 'boolean', description: 'Show how each score was made.', default: false },
    context: {
      type: 'string',
      description: 'Widen each hit: N more lines above and below (0-400), or "section" for its enclosing section (docs) or symbol (code); snippets then default to 8000 characters.',
    },
    mode: {
      type: 'string',
      description: 'Ranked lists to use: both fused (hybrid), BM25 only, or vectors only.',
      options: ['hybrid', 'lexical', 'vector'],
    },
    embedder: EMBEDDER_FLAG_SPEC,
    server: {
      type: 'boolean',
      description: 'Ask a running `serve`/`watch` process (default); --no-server always works in this process (also TKOMA_REF_NO_SERVER=1).',
      default: true,
      allowNo: true,
    },
  },
} as const satisfies CommandSpec;

/** `topic list` (cli/listing.ts); here so the fast path parses it before loading the listing code. */
export const TOPIC_LIST_SPEC = {
  args: [],
  flags: {
    input: INPUT_FLAG_SPEC,
    'include-obsolete': { type: 'boolean', description: 'Also list obsolete topics.', default: false },
  },
} as const satisfies CommandSpec;

/** The part of `init` the fast path answers: `init --json` (--root); --embedder goes to oclif. */
export const INIT_FAST_SPEC = { args: [], flags: {} } as const satisfies CommandSpec;

/** `topic create` (cli/creating.ts); the oclif command's flags are made from it. */
export const TOPIC_CREATE_SPEC = {
  args: [],
  flags: {
    input: INPUT_FLAG_SPEC,
    title: { type: 'string', description: 'Topic title.' },
    body: { type: 'string', description: 'Topic description (markdown) written by the ghost.' },
    'body-file': { type: 'string', description: 'Read the body from a file.', exclusive: ['body'] },
    git: { type: 'string', description: 'Git source URL (https, ssh, git@host:path, file://).', multiple: true },
    ref: { type: 'string', description: 'Branch, tag or full commit of the --git source.' },
    path: { type: 'string', description: 'Folder (trailing /) or file of the --git source to fetch.', multiple: true },
    web: { type: 'string', description: 'Web page URL (one page per source; with --crawl, the start of a crawl).', multiple: true },
    crawl: { type: 'boolean', description: 'Crawl the documentation site from each --web URL instead of fetching the one page.', default: false },
    'max-pages': { type: 'integer', description: 'With --crawl: most pages kept per site (default 200; at most [crawl] max_pages_cap).', min: 1 },
    'max-depth': { type: 'integer', description: 'With --crawl: most link hops from the start page (default 5).', min: 1 },
    'crawl-scope': { type: 'string', description: "With --crawl: prefix (the pages under the URL's folder, the default) or host (the whole host).", options: ['prefix', 'host'] },
    'crawl-include': { type: 'string', description: 'With --crawl: only URL paths matching this glob (repeatable).', multiple: true },
    'crawl-exclude': { type: 'string', description: 'With --crawl: leave out URL paths matching this glob (repeatable).', multiple: true },
    npm: { type: 'string', description: 'npm package, optionally @version, range or dist-tag: zod@3.23.8, @scope/name@^1.', multiple: true },
    tag: { type: 'string', description: 'Tag (repeatable).', multiple: true },
    'max-age-days': { type: 'integer', description: 'Days until the topic is stale (0 = never). Default 30.' },
    'trust-score': { type: 'integer', description: 'Trust score 0-10. Default 5.' },
    'topic-id': { type: 'string', description: 'Topic id (default: topic-<slug of title>).' },
    approve: { type: 'string', description: 'Approval token from phase 1 (only when `[approval] mode = "token"`).' },
    yes: { type: 'boolean', description: "Operator's explicit approval: fetch without a token.", default: false },
    'dry-run': { type: 'boolean', description: 'Show what would be fetched and skipped, and the estimated chunks and time; write nothing.', default: false },
    ...AUTHOR_FLAG_SPECS,
    embedder: EMBEDDER_FLAG_SPEC,
  },
} as const satisfies CommandSpec;

/** `mcp` (cli/mcp.ts); here so the fast path parses it before loading the server. */
export const MCP_SPEC = {
  args: [],
  flags: {
    http: { type: 'integer', description: 'Serve Streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio.', min: 1, max: 65535 },
    serve: {
      type: 'boolean',
      description: "Also answer the CLI's searches over the root's socket when nobody else does (default); --no-serve to not.",
      default: true,
      allowNo: true,
    },
    'reconcile-seconds': { type: 'integer', description: 'Full reconciliation interval of the watcher (default from tkoma-ref.toml, 300).', min: 1 },
    ghost: { type: 'string', description: 'Ghost (agent) making the change: the commit author.' },
    model: { type: 'string', description: 'Model behind the ghost, recorded in the commit author.' },
    embedder: EMBEDDER_FLAG_SPEC,
  },
} as const satisfies CommandSpec;

/** `topic update` (cli/managing.ts). */
export const TOPIC_UPDATE_SPEC = {
  args: [{ name: 'id', description: 'Topic id (or topic_id in --input)' }],
  flags: {
    input: INPUT_FLAG_SPEC,
    status: { type: 'string', description: 'active | stale | obsolete' },
    'max-age-days': { type: 'integer', description: 'Days until stale (0 = never).' },
    'trust-score': { type: 'integer', description: 'Trust score 0-10.' },
    body: { type: 'string', description: 'New body (markdown).' },
    title: { type: 'string', description: 'New title.' },
    tag: { type: 'string', description: 'Replace the tags (repeatable).', multiple: true },
    ...AUTHOR_FLAG_SPECS,
  },
} as const satisfies CommandSpec;

/** `delete` (cli/managing.ts). */
export const DELETE_SPEC = {
  args: [{ name: 'id', description: 'Topic id', required: true }],
  flags: { yes: { type: 'boolean', description: 'Do not ask for confirmation.', default: false }, ...AUTHOR_FLAG_SPECS },
} as const satisfies CommandSpec;

/** `file status` (cli/managing.ts). */
export const FILE_STATUS_SPEC = {
  args: [],
  flags: {
    input: INPUT_FLAG_SPEC,
    topic: { type: 'string', description: 'Topic id.' },
    path: { type: 'string', description: 'File path inside the topic.' },
    status: { type: 'string', description: 'active | problematic | obsolete' },
    reason: { type: 'string', description: 'Why (required unless active).' },
    ...AUTHOR_FLAG_SPECS,
  },
} as const satisfies CommandSpec;

/** `get` (cli/getting.ts). */
export const GET_SPEC = {
  args: [],
  flags: {
    input: INPUT_FLAG_SPEC,
    id: { type: 'string', description: 'Note id: <topic-id>/<path>[#L<start>-L<end>]' },
    topic: { type: 'string', description: 'Topic id.' },
    path: { type: 'string', description: 'File path inside the topic (default topic.md).' },
    'start-line': { type: 'integer', description: 'First line (1-based).', min: 1 },
    'end-line': { type: 'integer', description: 'Last line (inclusive).', min: 1 },
    'max-chars': { type: 'integer', description: 'Cut the content after this many characters.', min: 1 },
  },
} as const satisfies CommandSpec;

const REQUEST_ID_ARG = { name: 'id', description: 'Request id (8 hex characters, from `tkoma-ref approvals`)', required: true } as const;

/** `approve` (cli/approvals.ts). */
export const APPROVE_SPEC = { args: [REQUEST_ID_ARG], flags: {} } as const satisfies CommandSpec;

/** `deny` (cli/approvals.ts). */
export const DENY_SPEC = {
  args: [REQUEST_ID_ARG],
  flags: { note: { type: 'string', description: 'Why, for the ghost (it reads this and retries smaller).' } },
} as const satisfies CommandSpec;

/** `index status` (cli/index-status.ts). */
export const INDEX_STATUS_SPEC = { args: [], flags: {} } as const satisfies CommandSpec;

/** `refresh` (cli/refreshing.ts). */
export const REFRESH_SPEC = {
  args: [{ name: 'ids', description: 'Topic ids' }],
  variadic: true,
  flags: {
    stale: { type: 'boolean', description: 'Refresh every stale topic.', default: false },
    all: { type: 'boolean', description: 'Refresh every non-obsolete topic.', default: false },
    'dry-run': { type: 'boolean', description: 'Show what would change and be skipped, and the estimated cost; write nothing.', default: false },
    ...AUTHOR_FLAG_SPECS,
    embedder: EMBEDDER_FLAG_SPEC,
  },
} as const satisfies CommandSpec;

/** `sync` (cli/syncing.ts). */
export const SYNC_SPEC = {
  args: [],
  flags: {
    'dry-run': { type: 'boolean', description: 'Fetch, then say what would be pulled, pushed and merged; change nothing.', default: false },
    continue: { type: 'boolean', description: 'Finish a sync that stopped on conflicts, once you resolved them (`git add`).', default: false },
    embedder: EMBEDDER_FLAG_SPEC,
  },
} as const satisfies CommandSpec;
