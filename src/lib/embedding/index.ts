/**
 * Choosing and starting an embedder. Deliberately light: provider modules (tfjs, onnxruntime)
 * are imported only when that provider is started, so commands that never embed stay fast.
 */
import { join } from 'node:path';
import { TkomaError } from '../errors.js';
import { envSetting, settingEnv } from '../settings.js';
import type { Embedder, EmbedderChoice, EmbedderSettings } from './types.js';
import type { HttpProviderOptions } from './remote.js';
import type { TransformersOptions } from './transformers.js';

export const EMBEDDER_CHOICES: readonly EmbedderChoice[] = ['auto', 'transformers', 'use-lite', 'ollama', 'openai', 'none'];

/** Per-provider tuning that is not user configuration (timeouts, batch sizes); mostly for tests. */
export interface ProviderOptions {
  http?: HttpProviderOptions;
  transformers?: TransformersOptions;
}

function parseChoice(raw: string, from: string): EmbedderChoice {
  const value = raw.trim().toLowerCase();
  if ((EMBEDDER_CHOICES as readonly string[]).includes(value)) return value as EmbedderChoice;
  throw new TkomaError('INVALID_ENUM', `unknown embedder "${raw}" (from ${from}); use one of ${EMBEDDER_CHOICES.join(', ')}`, {
    field: 'embedder',
    value: raw,
    allowed: [...EMBEDDER_CHOICES],
  });
}

const nonEmpty = (v: string | undefined): string | undefined => (v && v.trim() !== '' ? v.trim() : undefined);

/**
 * Effective settings. Precedence: flag > environment > the root's config > defaults (provider
 * 'auto'). A level's model and URL only apply when that level did not name a different provider:
 * a model chosen for Ollama in the config is not fed to transformers picked by a flag.
 * URL: TKOMA_REF_EMBED_URL > config url > OLLAMA_HOST (for ollama only).
 */
export function settingsFromEnv(
  env: NodeJS.ProcessEnv,
  config: Partial<EmbedderSettings> = {},
  flag?: string,
): EmbedderSettings {
  const envProviderRaw = envSetting('embedder', env);
  const envProvider = envProviderRaw ? parseChoice(envProviderRaw, settingEnv('embedder')) : undefined;
  const configProvider = config.provider ? parseChoice(config.provider, 'config') : undefined;
  const flagValue = nonEmpty(flag);
  const provider: EmbedderChoice =
    (flagValue ? parseChoice(flagValue, '--embedder') : undefined) ?? envProvider ?? configProvider ?? 'auto';

  const envApplies = !envProvider || envProvider === provider;
  const configApplies = !configProvider || configProvider === provider;

  const model =
    (envApplies ? envSetting('embedModel', env) : undefined) ?? (configApplies ? nonEmpty(config.model) : undefined);
  const url =
    (envApplies ? envSetting('embedUrl', env) : undefined) ??
    (configApplies ? nonEmpty(config.url) : undefined) ??
    (provider === 'ollama' ? nonEmpty(env.OLLAMA_HOST) : undefined);
  const apiKey = envSetting('openaiApiKey', env) ?? nonEmpty(env.OPENAI_API_KEY) ?? nonEmpty(config.apiKey);
  const modelDir = envSetting('modelDir', env) ?? nonEmpty(config.modelDir);
  const cacheBase = nonEmpty(env.XDG_CACHE_HOME) ?? join(nonEmpty(env.HOME) ?? '.', '.cache');
  const cacheDir = nonEmpty(config.cacheDir) ?? join(cacheBase, 'tkoma-ref', 'models');

  const settings: EmbedderSettings = { provider, cacheDir };
  if (model) settings.model = model;
  if (url) settings.url = url;
  if (apiKey) settings.apiKey = apiKey;
  if (modelDir) settings.modelDir = modelDir;
  return settings;
}

function unavailable(provider: string, err: unknown): TkomaError {
  if (err instanceof TkomaError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new TkomaError('EMBEDDER_UNAVAILABLE', `${provider} embedder failed to start: ${message}`, { provider });
}

async function start(
  provider: Exclude<EmbedderChoice, 'auto' | 'none'>,
  settings: EmbedderSettings,
  opts: ProviderOptions,
): Promise<Embedder> {
  try {
    switch (provider) {
      case 'transformers': {
        const m = await import('./transformers.js');
        return await m.createTransformersEmbedder(settings, opts.transformers);
      }
      case 'use-lite': {
        const m = await import('./use-lite.js');
        return await m.createUseLiteEmbedder();
      }
      case 'ollama': {
        const m = await import('./ollama.js');
        return await m.createOllamaEmbedder(settings, opts.http);
      }
      case 'openai': {
        const m = await import('./openai.js');
        return await m.createOpenAIEmbedder(settings, opts.http);
      }
    }
  } catch (err) {
    throw unavailable(provider, err);
  }
}

/**
 * The embedder the settings ask for: null for 'none'; for 'auto' the first that works (see
 * resolveAuto); an explicit provider that cannot work throws EMBEDDER_UNAVAILABLE with the reason.
 */
export async function createEmbedder(settings: EmbedderSettings, opts: ProviderOptions = {}): Promise<Embedder | null> {
  if (settings.provider === 'none') return null;
  if (settings.provider === 'auto') return (await resolveAuto(settings, opts)).embedder;
  return start(settings.provider, settings, opts);
}

export interface AutoResolution {
  embedder: Embedder | null;
  /** Providers that were tried and failed, in order, with why. */
  tried: { provider: string; reason: string }[];
}

/** Offline machines must not wait long for Hugging Face before falling back. */
const AUTO_PROBE_TIMEOUT_MS = 1500;

/**
 * transformers (a local or cached model, or a download when Hugging Face answers quickly), then
 * use-lite (ships in npm, always offline), then none (lexical search only).
 */
export async function resolveAuto(settings: EmbedderSettings, opts: ProviderOptions = {}): Promise<AutoResolution> {
  const tried: AutoResolution['tried'] = [];
  const order = ['transformers', 'use-lite'] as const;
  for (const provider of order) {
    const providerOpts: ProviderOptions =
      provider === 'transformers'
        ? { ...opts, transformers: { probeTimeoutMs: AUTO_PROBE_TIMEOUT_MS, ...opts.transformers } }
        : opts;
    try {
      return { embedder: await start(provider, settings, providerOpts), tried };
    } catch (err) {
      tried.push({ provider, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return { embedder: null, tried };
}
