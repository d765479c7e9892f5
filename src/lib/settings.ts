/**
 * Every setting tkoma-ref reads from the environment, declared once, and every key of
 * `tkoma-ref.toml` (TOML_KEYS). Code reads environment settings through `envSetting` and never
 * from `process.env` directly (test/settings.test.ts scans the sources for strays); the README's
 * configuration tables are rendered from these lists and the same test keeps them equal.
 *
 * Precedence, where a setting has more than one home: built-in default < `tkoma-ref.toml` <
 * environment < command-line flag.
 *
 * A hand-written table instead of a zod schema: importing zod costs 90–160 ms here (measured with
 * a bare `import('zod')` on this 2-core machine), and `search` must answer in about Node's own
 * start-up time. These parsers are a few lines each and tested.
 */
import { TkomaError } from './errors.js';

type Kind = 'string' | 'path' | 'url' | 'seconds' | 'count' | 'flag' | 'list';

interface SettingSpec {
  env: string;
  kind: Kind;
  /** What it does, for the README. */
  doc: string;
  /** The default, as the README shows it. */
  shown?: string;
  /** The matching flag or `tkoma-ref.toml` key, for the README. */
  also?: string;
  /** A secret: never echoed, never passed to a server process in clear logs. */
  secret?: boolean;
  /** For tests and debugging only: listed apart in the README. */
  internal?: boolean;
}

export const SETTINGS = {
  root: { env: 'TKOMA_REF_ROOT', kind: 'path', doc: 'The knowledge root.', shown: '`$XDG_DATA_HOME/tkoma-ref`', also: '`--root`' },
  ghost: { env: 'TKOMA_REF_GHOST', kind: 'string', doc: 'The ghost (agent) making a change: the commit author.', also: '`--ghost`' },
  model: { env: 'TKOMA_REF_MODEL', kind: 'string', doc: 'The model behind the ghost, recorded in the commit author.', also: '`--model`' },
  lockTimeout: { env: 'TKOMA_REF_LOCK_TIMEOUT', kind: 'seconds', doc: 'How long a writer waits for the write lock before `LOCKED`.', shown: '30' },
  webTimeout: {
    env: 'TKOMA_REF_WEB_TIMEOUT',
    kind: 'seconds',
    doc: 'How long one web page (connect, redirects and body) may take before it is given up as a timeout; a crawl lists it and goes on.',
    shown: '20',
  },
  noServer: { env: 'TKOMA_REF_NO_SERVER', kind: 'flag', doc: 'Never ask a running `serve`/`watch`/`mcp` process; answer in this process.', also: '`--no-server`' },
  embedder: {
    env: 'TKOMA_REF_EMBEDDER',
    kind: 'string',
    doc: 'Embedding provider: `auto`, `transformers`, `use-lite`, `ollama`, `openai` or `none`.',
    shown: '`auto`',
    also: '`--embedder`, `[embedding] provider`',
  },
  embedModel: { env: 'TKOMA_REF_EMBED_MODEL', kind: 'string', doc: 'Model name for `transformers`, `ollama` or `openai`.', also: '`[embedding] model`' },
  embedUrl: { env: 'TKOMA_REF_EMBED_URL', kind: 'url', doc: 'Server URL for `ollama` or `openai` (for `ollama`, `OLLAMA_HOST` also works).', also: '`[embedding] url`' },
  modelDir: { env: 'TKOMA_REF_MODEL_DIR', kind: 'path', doc: 'A local model folder for `transformers` (air-gapped use).' },
  openaiApiKey: { env: 'TKOMA_REF_OPENAI_API_KEY', kind: 'string', doc: 'API key for `openai` (else `OPENAI_API_KEY`).', secret: true },
  githubApi: { env: 'TKOMA_REF_GITHUB_API', kind: 'url', doc: 'GitHub REST API base for repository metadata in approvals.', shown: '`https://api.github.com`' },
  chunkThreads: {
    env: 'TKOMA_REF_CHUNK_THREADS',
    kind: 'count',
    doc: 'Threads that chunk files during indexing, this one included (1: no worker threads).',
    shown: 'one per core, up to 4, for 200+ code files',
  },
  embedThreads: { env: 'TKOMA_REF_EMBED_THREADS', kind: 'count', doc: 'onnxruntime threads for `transformers` embedding.', shown: "onnxruntime's choice" },
  vectorWorker: {
    env: 'TKOMA_REF_VECTOR_WORKER',
    kind: 'string',
    doc: '`off`: `topic create`, `refresh` and `watch` start no background vector builder (vectors wait for `index embed`).',
  },
  mcpSessions: { env: 'TKOMA_REF_MCP_SESSIONS', kind: 'count', doc: '`mcp --http`: most client sessions open at once; past it `initialize` gets HTTP 503.', shown: '64' },
  mcpSessionIdle: {
    env: 'TKOMA_REF_MCP_SESSION_IDLE',
    kind: 'seconds',
    doc: '`mcp --http`: a session with no request and no open stream for this long is closed (its client must initialize again).',
    shown: '1800',
  },
  elicitationTimeout: {
    env: 'TKOMA_REF_ELICITATION_TIMEOUT',
    kind: 'seconds',
    doc: '`mcp`: how long the approval dialog in the host waits for the operator; unanswered, the create is not approved (no token; in operator mode the request stays pending).',
    shown: '1800',
  },
  debug: { env: 'TKOMA_REF_DEBUG', kind: 'flag', doc: 'Print stack traces of unexpected errors, and why a search ran in-process.' },
  codeCache: {
    env: 'TKOMA_REF_CODE_CACHE',
    kind: 'path',
    doc: "Folder where `search` and `mcp` keep V8's compiled code between runs (a faster cold start); `off` to keep none.",
    shown: '`$XDG_CACHE_HOME/tkoma-ref/code-cache`',
  },
  noBundle: {
    env: 'TKOMA_REF_NO_BUNDLE',
    kind: 'flag',
    doc: 'Tests: run the fast path from its separate modules instead of dist/fast.cjs, so a trace sees each module load.',
    internal: true,
  },
  noFastPath: { env: 'TKOMA_REF_NO_FAST_PATH', kind: 'flag', doc: '`search`, `mcp`, `topic list`, `topic create --json --input` and `init --json` always go through the full command parser (slower start-up).', internal: true },
  tricksOff: {
    env: 'TKOMA_REF_TRICKS_OFF',
    kind: 'list',
    doc: 'Benchmarks (bench/tricks.ts): turn off the named speed tricks (`prefetch`, `young-generation`, `toml-subset`, `chunks-ahead`) to measure what each buys.',
    internal: true,
  },
  crashAt: { env: 'TKOMA_REF_CRASH_AT', kind: 'list', doc: 'Crash tests: SIGKILL (or pause at) the named points of a mutation.', internal: true },
  holdAt: { env: 'TKOMA_REF_HOLD_AT', kind: 'list', doc: 'Tests: wait at the named points until `TKOMA_REF_HOLD_UNTIL` exists.', internal: true },
  holdUntil: { env: 'TKOMA_REF_HOLD_UNTIL', kind: 'path', doc: 'Tests: the file whose appearance releases `TKOMA_REF_HOLD_AT`.', internal: true },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;

type Env = Record<string, string | undefined>;

type ValueOf<K extends Kind> = K extends 'seconds' | 'count' ? number : K extends 'flag' ? boolean : K extends 'list' ? string[] : string;

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['', '0', 'false', 'no', 'off']);

function parse(spec: SettingSpec, raw: string): unknown {
  const value = raw.trim();
  switch (spec.kind) {
    case 'flag': {
      const v = value.toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      throw new TkomaError('INVALID_INPUT', `${spec.env} must be 1/true/yes or 0/false/no (got '${raw}')`, { setting: spec.env });
    }
    case 'seconds': {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0) throw new TkomaError('INVALID_INPUT', `${spec.env} must be a number of seconds (got '${raw}')`, { setting: spec.env });
      return n;
    }
    case 'count': {
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < 1) throw new TkomaError('INVALID_INPUT', `${spec.env} must be a whole number from 1 (got '${raw}')`, { setting: spec.env });
      return n;
    }
    case 'list':
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return value;
  }
}

/**
 * The setting's value from the environment, parsed; undefined when it is unset or empty (a flag
 * that is unset is false). A malformed value is INVALID_INPUT naming the variable.
 */
export function envSetting<N extends SettingName>(name: N, env: Env = process.env): ValueOf<(typeof SETTINGS)[N]['kind']> | undefined {
  const spec: SettingSpec = SETTINGS[name];
  const raw = env[spec.env];
  if (raw === undefined || (raw.trim() === '' && spec.kind !== 'flag')) return (spec.kind === 'flag' ? false : undefined) as never;
  return parse(spec, raw) as never;
}

/**
 * A flag read where no error can be reported (the error printer, start-up): a malformed value
 * counts as `fallback` instead of failing.
 */
export function envFlagOr(name: SettingName, fallback: boolean, env: Env = process.env): boolean {
  try {
    return Boolean(envSetting(name, env));
  } catch {
    return fallback;
  }
}

/** Whether a speed trick was turned off for an A/B measurement (`TKOMA_REF_TRICKS_OFF`). */
export function trickOff(name: 'prefetch' | 'young-generation' | 'toml-subset' | 'chunks-ahead', env: Env = process.env): boolean {
  const off = envSetting('tricksOff', env);
  return Array.isArray(off) && off.includes(name);
}

/** The environment variable behind a setting, for messages and for a child process's environment. */
export function settingEnv(name: SettingName): string {
  return SETTINGS[name].env;
}

/** The README's configuration table, rendered from SETTINGS. */
export function renderSettingsTable(): string {
  const rows = (internal: boolean): string[] =>
    (Object.values(SETTINGS) as SettingSpec[])
      .filter((s) => Boolean(s.internal) === internal)
      .map((s) => `| \`${s.env}\` | ${s.doc} | ${s.shown ?? '–'} | ${s.also ?? '–'} |`);
  const head = ['| variable | what it sets | default | also set by |', '|---|---|---|---|'];
  return [...head, ...rows(false), '', 'For tests and debugging only:', '', ...head, ...rows(true)].join('\n');
}

interface TomlKeySpec {
  /** `[table] key`, as the file spells it. */
  key: string;
  doc: string;
  shown?: string;
  /** The matching environment variable or flag. */
  also?: string;
}

/**
 * The keys of `tkoma-ref.toml` (tracked, at the root). src/lib/store/config.ts parses them; the
 * defaults shown here are the ones it and src/lib/safety/limits.ts apply.
 */
export const TOML_KEYS: readonly TomlKeySpec[] = [
  { key: '[embedding] provider', doc: 'The embedder asked for (same names as `TKOMA_REF_EMBEDDER`).', shown: '`auto`', also: '`TKOMA_REF_EMBEDDER`, `--embedder`, `index embedder set`' },
  { key: '[embedding] model', doc: 'Model name for the provider.', also: '`TKOMA_REF_EMBED_MODEL`, `index embedder set --model`' },
  { key: '[embedding] url', doc: 'Server URL for `ollama` or `openai`.', also: '`TKOMA_REF_EMBED_URL`' },
  { key: '[embedding] recorded', doc: 'Written by the tool: the embedder that built the vectors (`provider:model:dimension` or `none`); every read uses it.' },
  { key: '[embedding] chunks', doc: 'Chunk vectors: `auto` (off for `use-lite`), `on` or `off`. Topic notes always get vectors.', shown: '`auto`', also: '`index embedder set --chunks`' },
  { key: '[watch] reconcile_seconds', doc: 'How often `watch` re-scans everything besides following file events.', shown: '300' },
  { key: '[limits] max_files', doc: 'Most files one topic may hold.', shown: '20000', also: 'the request\'s `limits`' },
  { key: '[limits] max_file_bytes', doc: 'Largest file kept, in bytes.', shown: '1048576 (1 MiB)', also: 'the request\'s `limits`' },
  { key: '[limits] max_topic_bytes', doc: 'Most bytes one topic may hold.', shown: '536870912 (512 MiB)', also: 'the request\'s `limits`' },
  {
    key: '[network] allow',
    doc: 'Non-public addresses fetches may reach (web pages, redirects, git over http(s)/ssh): `"host"`, `"host:port"`, `"[::1]:8080"` or a subnet `"10.0.0.0/8"`. Everything else that is loopback, private, CGNAT, unique-local, link-local or unspecified is refused (`NOT_ALLOWED`).',
    shown: '`[]` (public addresses only)',
  },
  { key: '[sources] local_roots', doc: 'Folders whose git repositories may be `file://` sources (absolute paths, `~/` allowed); any other local path is refused (`NOT_ALLOWED`).', shown: '`[]` (none)' },
  {
    key: '[crawl] max_pages_cap',
    doc: 'Most pages one crawl may ask for (`crawl.max_pages`, `--max-pages`); a request over it is refused (`INVALID_INPUT`), and the default of 200 pages is lowered to it.',
    shown: '1000',
  },
  {
    key: '[approval] mode',
    doc: '`operator`: a `topic create` waits for `tkoma-ref approve ID` (no token is handed out); `token`: phase 1 answers a single-use token, for gateways that hold it themselves.',
    shown: '`operator`',
  },
];

/** The README's `tkoma-ref.toml` table, rendered from TOML_KEYS. */
export function renderTomlTable(): string {
  return [
    '| key | what it sets | default | also set by |',
    '|---|---|---|---|',
    ...TOML_KEYS.map((k) => `| \`${k.key}\` | ${k.doc} | ${k.shown ?? '–'} | ${k.also ?? '–'} |`),
  ].join('\n');
}
