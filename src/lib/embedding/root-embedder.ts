/**
 * Which embedder a knowledge root uses. The root's config records the vector space chosen for it
 * (`embedding.recorded` = `provider:model:dimension`, or "none"), written only by the deliberate
 * commands `init --embedder` and `index embedder set` (src/lib/vectors/choice.ts). Resolving is a
 * pure read: it never writes the config nor commits, whatever flag or environment variable asks
 * for. A request for another embedder than the recorded one gets the recorded one and a warning.
 * Without a record, the config's provider (or the environment's) is used in memory only.
 */
import type { Embedder, EmbedderProvider, EmbedderSettings } from './types.js';
import { readConfig } from '../store/config.js';
import { settingEnv } from '../settings.js';
import { forgetStarted, parseKey, startOnce } from '../vectors/space.js';

export interface ResolvedEmbedder {
  embedder: Embedder | null;
  /** Why there is no embedder (lexical search only). */
  reason?: string;
  /** The request named another embedder than the recorded one, which is used instead. */
  warning?: string;
  /** Never set any more: resolving does not record (kept for callers that read it). */
  recordedChanged?: boolean;
}

/** `provider:model:dimension`; the model may itself contain `:` (ollama tags). */
export const parseRecordedKey = parseKey;

const PROVIDERS: readonly string[] = ['transformers', 'use-lite', 'ollama', 'openai'];

export async function resolveEmbedder(root: string, opts: { flag?: string } = {}): Promise<ResolvedEmbedder> {
  const { settingsFromEnv, createEmbedder, resolveAuto } = await import('./index.js');
  const config = await readConfig(root);
  const settings = settingsFromEnv(process.env, config.embedding as Partial<EmbedderSettings>, opts.flag);
  const recorded = config.embedding.recorded;

  if (settings.provider === 'none') {
    return { embedder: null, reason: 'embedder "none" selected: lexical search only' };
  }
  if (recorded === 'none') return { embedder: null, reason: 'this knowledge root records embedder "none": lexical search only' };

  const parsed = recorded ? parseKey(recorded) : null;
  if (recorded && parsed && PROVIDERS.includes(parsed.provider)) {
    // Exactly the recorded model, never a fallback: vectors of two models must not mix.
    const asked = settings.provider !== 'auto' && (settings.provider !== parsed.provider || (settings.model !== undefined && settings.model !== parsed.model));
    const warning = asked
      ? `embedder ${settings.provider}${settings.model ? `:${settings.model}` : ''} was asked for, but this knowledge root records ${recorded}: using it (change it with \`tkoma-ref index embedder set\`)`
      : undefined;
    const env = { ...process.env };
    delete env[settingEnv('embedder')];
    const exact: EmbedderSettings = {
      ...settingsFromEnv(env, { ...config.embedding, provider: parsed.provider } as Partial<EmbedderSettings>, parsed.provider),
      provider: parsed.provider as EmbedderProvider,
      model: parsed.model,
    };
    try {
      const embedder = await startOnce(JSON.stringify(exact), () => createEmbedder(exact));
      if (!embedder) return { embedder: null, reason: `recorded embedder ${recorded} did not start`, ...(warning ? { warning } : {}) };
      return { embedder, ...(warning ? { warning } : {}) };
    } catch (err) {
      return { embedder: null, reason: `recorded embedder ${recorded} is unavailable: ${messageOf(err)}`, ...(warning ? { warning } : {}) };
    }
  }

  let embedder: Embedder | null;
  if (settings.provider === 'auto') {
    let tried: { provider: string; reason: string }[] = [];
    try {
      embedder = await startOnce(JSON.stringify(settings), async () => {
        const auto = await resolveAuto(settings);
        tried = auto.tried;
        return auto.embedder;
      });
    } catch (err) {
      return { embedder: null, reason: messageOf(err) };
    }
    if (!embedder) {
      const why = tried.map((t) => `${t.provider}: ${t.reason}`).join('; ');
      return { embedder: null, reason: `no embedder works here${why ? ` (${why})` : ''}: lexical search only` };
    }
    return { embedder };
  }
  try {
    embedder = await startOnce(JSON.stringify(settings), () => createEmbedder(settings));
  } catch (err) {
    return { embedder: null, reason: messageOf(err) };
  }
  return embedder ? { embedder } : { embedder: null, reason: 'no embedder: lexical search only' };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Forget started embedders (tests that stop their protocol servers). */
export function forgetEmbedders(): void {
  forgetStarted();
}
