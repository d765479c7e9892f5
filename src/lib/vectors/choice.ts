/**
 * The embedder is a deliberate, recorded choice: `init --embedder NAME` and `index embedder set
 * NAME` are the only writers of `[embedding]` in tkoma-ref.toml, each as one commit. The model is
 * started first, so a choice that cannot run is refused (EMBEDDER_UNAVAILABLE, exit 8) and nothing
 * is written. The existing vectors keep serving; the new space is built in the background and
 * swapped in per topic when complete (builder.ts).
 */
import type { EmbedderChoice, EmbedderSettings } from '../embedding/types.js';
import { TkomaError } from '../errors.js';
import type { CommitAuthor } from '../root-git.js';
import { settingEnv } from '../settings.js';
import { CONFIG_FILE, readConfig, writeConfig } from '../store/config.js';
import { type ChunkVectors, chunkVectorsFor } from './space.js';

export interface SetEmbedderRequest {
  provider: string;
  model?: string;
  url?: string;
  /** on | off | auto (default: keep the current setting). */
  chunks?: ChunkVectors;
}

export interface SetEmbedderResult {
  recorded: string;
  previous: string | null;
  chunk_vectors: boolean;
  commit: string | null;
  /** Who builds the new space now. */
  building?: { pid?: number; reason?: string };
}

export async function setEmbedder(root: string, req: SetEmbedderRequest, opts: { author?: CommitAuthor; startWorker?: boolean } = {}): Promise<SetEmbedderResult> {
  const { EMBEDDER_CHOICES, settingsFromEnv, createEmbedder, resolveAuto } = await import('../embedding/index.js');
  const provider = req.provider.trim().toLowerCase();
  if (!(EMBEDDER_CHOICES as readonly string[]).includes(provider)) {
    throw new TkomaError('INVALID_ENUM', `unknown embedder "${req.provider}"; use one of ${EMBEDDER_CHOICES.join(', ')}`, {
      field: 'embedder',
      value: req.provider,
      allowed: [...EMBEDDER_CHOICES],
    });
  }
  if (req.chunks !== undefined && !['on', 'off', 'auto'].includes(req.chunks)) {
    throw new TkomaError('INVALID_ENUM', '`chunks` must be on, off or auto', { field: 'chunks', allowed: ['on', 'off', 'auto'] });
  }
  const config = await readConfig(root);
  const previous = config.embedding.recorded ?? null;

  let key = 'none';
  if (provider !== 'none') {
    const env = { ...process.env };
    delete env[settingEnv('embedder')];
    delete env[settingEnv('embedModel')];
    const fromConfig = { ...(req.url ? { url: req.url } : config.embedding.url ? { url: config.embedding.url } : {}) };
    const settings: EmbedderSettings = {
      ...settingsFromEnv(env, { provider, ...fromConfig } as Partial<EmbedderSettings>, provider),
      provider: provider as EmbedderChoice,
      ...(req.model ? { model: req.model } : {}),
    };
    let embedder;
    try {
      embedder = provider === 'auto' ? (await resolveAuto(settings)).embedder : await createEmbedder(settings);
    } catch (err) {
      throw new TkomaError('EMBEDDER_UNAVAILABLE', `${provider} cannot run here: ${err instanceof Error ? err.message : String(err)}`, { embedder: provider });
    }
    if (!embedder) throw new TkomaError('EMBEDDER_UNAVAILABLE', `no embedder works here for "${provider}"`, { embedder: provider });
    key = embedder.key;
  }

  const { runMutation } = await import('../mutation.js');
  const { commit } = await runMutation(root, { op: 'set-embedder', paths: [CONFIG_FILE], author: opts.author ?? {} }, async (m) => {
    const fresh = await readConfig(root);
    const next = { ...fresh.embedding };
    if (key === 'none') {
      next.provider = 'none';
      delete next.model;
    } else {
      const parsed = key.split(':');
      next.provider = parsed[0]!;
      next.model = key.slice(parsed[0]!.length + 1, key.lastIndexOf(':'));
    }
    if (req.url) next.url = req.url;
    else if (key !== 'none' && !['ollama', 'openai'].includes(next.provider)) delete next.url;
    next.recorded = key;
    if (req.chunks) next.chunks = req.chunks;
    if (JSON.stringify(next) === JSON.stringify(fresh.embedding)) return { message: null, value: null };
    fresh.embedding = next;
    m.willWrite([CONFIG_FILE]);
    await writeConfig(root, fresh);
    return { message: `set embedder: ${key}${req.chunks ? ` (chunk vectors ${req.chunks})` : ''}`, value: null };
  });
  const after = await readConfig(root);
  const { chunkSetting } = await import('./space.js');
  const out: SetEmbedderResult = {
    recorded: key,
    previous,
    chunk_vectors: key !== 'none' && chunkVectorsFor(chunkSetting(after), key),
    commit: commit ?? null,
  };
  if (key !== 'none' && opts.startWorker !== false) {
    const { requestVectors } = await import('./background.js');
    const r = await requestVectors(root);
    out.building = r.pid !== undefined ? { pid: r.pid, ...(r.reason ? { reason: r.reason } : {}) } : { reason: r.reason ?? 'not started' };
  }
  return out;
}
