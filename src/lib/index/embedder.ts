/**
 * Which embedder a knowledge root uses. The root's config records the vector space that built
 * its index (`embedding.recorded` = `provider:model:dimension`), so `auto` keeps using exactly
 * that model on every call and every machine; only an explicit choice moves to another model
 * (and the next sync then re-embeds). Search never fails for want of an embedder: it answers
 * lexically and says why.
 */
import type { Embedder, EmbedderProvider, EmbedderSettings } from '../embedding/types.js';
import { TkomaError } from '../errors.js';
import { CONFIG_FILE, readConfig, writeConfig } from '../store/config.js';

export interface ResolvedEmbedder {
  embedder: Embedder | null;
  /** Why there is no embedder (lexical search only). */
  reason?: string;
  /** The record in tkoma-ref.toml was written (and committed). */
  recordedChanged?: boolean;
}

/** `provider:model:dimension`; the model may itself contain `:` (ollama tags). */
export function parseRecordedKey(key: string): { provider: string; model: string; dimension: number } | null {
  const first = key.indexOf(':');
  const last = key.lastIndexOf(':');
  if (first <= 0 || last <= first) return null;
  const dimension = Number(key.slice(last + 1));
  if (!Number.isInteger(dimension) || dimension <= 0) return null;
  return { provider: key.slice(0, first), model: key.slice(first + 1, last), dimension };
}

const PROVIDERS: readonly string[] = ['transformers', 'use-lite', 'ollama', 'openai'];

// One started embedder per settings per process (watch, tests); failures are not remembered so a
// server that comes up later is picked up.
const started = new Map<string, Promise<Embedder | null>>();

function startOnce(settings: EmbedderSettings, start: () => Promise<Embedder | null>): Promise<Embedder | null> {
  const key = JSON.stringify(settings);
  let p = started.get(key);
  if (!p) {
    p = start();
    started.set(key, p);
    p.then(
      (e) => {
        if (!e) started.delete(key);
      },
      () => started.delete(key),
    );
  }
  return p;
}

export async function resolveEmbedder(root: string, opts: { flag?: string } = {}): Promise<ResolvedEmbedder> {
  const { settingsFromEnv, createEmbedder, resolveAuto } = await import('../embedding/index.js');
  const config = await readConfig(root);
  const settings = settingsFromEnv(process.env, config.embedding as Partial<EmbedderSettings>, opts.flag);
  const recorded = config.embedding.recorded;

  if (settings.provider === 'none') {
    return { embedder: null, reason: 'embedder "none" selected: lexical search only' };
  }

  let embedder: Embedder | null;
  if (settings.provider === 'auto') {
    const parsed = recorded && recorded !== 'none' ? parseRecordedKey(recorded) : null;
    if (recorded === 'none') return { embedder: null, reason: 'this knowledge root records embedder "none": lexical search only' };
    if (parsed && PROVIDERS.includes(parsed.provider)) {
      // Exactly the recorded model, never a fallback: vectors of two models must not mix.
      const exact: EmbedderSettings = { ...settings, provider: parsed.provider as EmbedderProvider, model: parsed.model };
      try {
        embedder = await startOnce(exact, () => createEmbedder(exact));
      } catch (err) {
        return { embedder: null, reason: `recorded embedder ${recorded} is unavailable: ${messageOf(err)}` };
      }
    } else {
      let tried: { provider: string; reason: string }[] = [];
      try {
        embedder = await startOnce(settings, async () => {
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
    }
  } else {
    try {
      embedder = await startOnce(settings, () => createEmbedder(settings));
    } catch (err) {
      return { embedder: null, reason: messageOf(err) };
    }
    if (!embedder) return { embedder: null, reason: 'no embedder: lexical search only' };
  }

  if (embedder && embedder.key !== recorded) {
    // Record the vector space the index is (re)built with; the next sync re-embeds if it moved.
    // Every change to the files is a commit, whichever command first chose the embedder, made
    // under the write lock like any mutation (an index-only test root without git just keeps the file).
    const key = embedder.key;
    const { runMutation } = await import('../mutation.js');
    await runMutation(root, { op: 'record-embedder', paths: [CONFIG_FILE], author: {} }, async (m) => {
      const fresh = await readConfig(root);
      if (fresh.embedding.recorded === key) return { message: null, value: null };
      fresh.embedding.recorded = key;
      m.willWrite([CONFIG_FILE]);
      await writeConfig(root, fresh);
      return { message: `record embedder: ${key}`, value: null };
    });
    return { embedder, recordedChanged: true };
  }
  return { embedder };
}

/** Like resolveEmbedder, but an explicitly chosen embedder that cannot start is an error. */
export async function requireEmbedder(root: string, opts: { flag?: string } = {}): Promise<ResolvedEmbedder> {
  const r = await resolveEmbedder(root, opts);
  if (!r.embedder && opts.flag && opts.flag !== 'none' && opts.flag !== 'auto') {
    throw new TkomaError('EMBEDDER_UNAVAILABLE', r.reason ?? `embedder ${opts.flag} is unavailable`, { embedder: opts.flag });
  }
  return r;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Forget started embedders (tests that stop their protocol servers). */
export function forgetEmbedders(): void {
  started.clear();
}
