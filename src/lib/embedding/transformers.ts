/**
 * In-process embeddings with @huggingface/transformers (onnxruntime-node, CPU only).
 *
 * Where the model comes from, in order:
 * 1. settings.modelDir (TKOMA_REF_MODEL_DIR): a local folder, never the network. It is either the
 *    model folder itself (holding config.json) or a mirror root holding `<model id>/config.json`.
 * 2. settings.cacheDir: a model downloaded earlier, loaded as a local folder (no network).
 * 3. A download from Hugging Face into cacheDir, attempted only after a short reachability probe so
 *    an offline machine fails in milliseconds to seconds, not after a TCP timeout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { TkomaError } from '../errors.js';
import { envSetting } from '../settings.js';
import type { Embedder, EmbedderSettings } from './types.js';
import { modelProfile, type ModelProfile, type Pooling } from './profiles.js';
import { batches, embedderKey, normalize } from './vectors.js';

export const TRANSFORMERS_DEFAULT_MODEL = 'Xenova/bge-small-en-v1.5';
/** transformers.js downloads from here (its env.remoteHost default). */
const HF_HOST = 'https://huggingface.co/';

export interface TransformersOptions {
  /** Texts per forward pass (default 4: on bge-small's shape, 4 beat 16 and 32 by 20–40%, bench/embed-shapes.ts). */
  batchSize?: number;
  /** How long the Hugging Face reachability probe may take before a download is given up. */
  probeTimeoutMs?: number;
  /** ONNX weights variant; default fp32, or q8 when a local folder only has model_quantized.onnx. */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4';
  /** onnxruntime intra-op threads (default: TKOMA_REF_EMBED_THREADS, else onnxruntime's own choice). */
  threads?: number;
}

/** Same pattern transformers.js uses to decide whether a name is a hub id (then it joins it to localModelPath). */
const HUB_ID = /^(\b[\w\-.]+\b\/)?\b[\w\-.]{1,96}\b$/;

interface Location {
  mode: 'local' | 'download';
  /** What to pass to pipeline(). */
  id: string;
  /** env.localModelPath for local mode. */
  root?: string;
  /** The model folder on disk (local mode). */
  folder?: string;
  /** The name that picks the profile and forms the key. */
  name: string;
}

function pickLocal(folder: string, name: string): Location {
  const parent = dirname(folder);
  const base = basename(folder);
  // A folder name transformers.js would not treat as an id is passed as an absolute path instead.
  return HUB_ID.test(base)
    ? { mode: 'local', id: base, root: parent, folder, name }
    : { mode: 'local', id: folder, root: parent, folder, name };
}

/** Decides where the model is read from, without touching the network. */
export function locateModel(settings: EmbedderSettings, defaultCacheDir: string): Location {
  if (settings.modelDir) {
    const dir = resolve(settings.modelDir);
    if (existsSync(join(dir, 'config.json'))) return pickLocal(dir, settings.model || basename(dir));
    const model = settings.model || TRANSFORMERS_DEFAULT_MODEL;
    if (existsSync(join(dir, model, 'config.json'))) return pickLocal(join(dir, model), model);
    throw new TkomaError(
      'EMBEDDER_UNAVAILABLE',
      `no transformers model in ${dir}: expected config.json there or in ${join(dir, model)}`,
      { provider: 'transformers', model_dir: dir },
    );
  }
  const model = settings.model || TRANSFORMERS_DEFAULT_MODEL;
  const cacheDir = resolve(settings.cacheDir || defaultCacheDir);
  const cached = join(cacheDir, model);
  if (existsSync(join(cached, 'config.json')) && onnxFile(cached)) return pickLocal(cached, model);
  return { mode: 'download', id: model, root: cacheDir, name: model };
}

/** The ONNX weights present in a model folder, preferring full precision. */
function onnxFile(folder: string): { dtype: 'fp32' | 'q8' } | undefined {
  if (existsSync(join(folder, 'onnx', 'model.onnx'))) return { dtype: 'fp32' };
  if (existsSync(join(folder, 'onnx', 'model_quantized.onnx'))) return { dtype: 'q8' };
  return undefined;
}

/** sentence-transformers folders state their pooling in 1_Pooling/config.json; it beats the name table. */
export function poolingFromFolder(folder: string | undefined): Pooling | undefined {
  if (!folder) return undefined;
  const file = join(folder, '1_Pooling', 'config.json');
  if (!existsSync(file)) return undefined;
  try {
    const cfg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (cfg.pooling_mode_cls_token === true) return 'cls';
    if (cfg.pooling_mode_mean_tokens === true) return 'mean';
  } catch {
    // unreadable: fall back to the name table
  }
  return undefined;
}

function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(process.env.HOME || '.', '.cache');
  return join(base, 'tkoma-ref', 'models');
}

async function probe(host: string, timeoutMs: number): Promise<string | undefined> {
  try {
    await fetch(host, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    return undefined;
  } catch (err) {
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      return `no answer within ${timeoutMs} ms`;
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code || cause?.message || (err instanceof Error ? err.message : String(err));
  }
}

interface Tensorish {
  dims: number[];
  data: ArrayLike<number>;
  dispose?: () => void;
}
type Extractor = ((texts: string[], opts: { pooling: Pooling; normalize: boolean }) => Promise<Tensorish>) & {
  dispose?: () => Promise<void>;
};

export class TransformersEmbedder implements Embedder {
  readonly provider = 'transformers' as const;
  readonly model: string;
  readonly profile: ModelProfile;
  readonly source: 'local' | 'cache' | 'download';
  private dim = 0;
  /** Texts run through the model so far (probe included), for callers and tests that count work. */
  embeddedCount = 0;

  constructor(
    private readonly extractor: Extractor,
    model: string,
    profile: ModelProfile,
    source: 'local' | 'cache' | 'download',
    private readonly batchSize: number,
  ) {
    this.model = model;
    this.profile = profile;
    this.source = source;
  }

  get dimension(): number {
    return this.dim;
  }

  get key(): string {
    return embedderKey('transformers', this.model, this.dim);
  }

  async init(): Promise<this> {
    const [v] = await this.run(['dimension probe']);
    this.dim = v!.length;
    return this;
  }

  embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return this.run(texts.map((t) => this.profile.documentPrefix + t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.run([this.profile.queryPrefix + text]);
    return v!;
  }

  async close(): Promise<void> {
    await this.extractor.dispose?.();
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    // Batch texts of similar length together so little compute goes to padding.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const out: Float32Array[] = new Array(texts.length);
    for (const batch of batches(order, this.batchSize)) {
      const tensor = await this.extractor(
        batch.map((i) => texts[i]!),
        { pooling: this.profile.pooling, normalize: false },
      );
      const [rows, dim] = tensor.dims as [number, number];
      if (rows !== batch.length) throw new Error(`model returned ${rows} vectors for ${batch.length} texts`);
      const data = tensor.data instanceof Float32Array ? tensor.data : Float32Array.from(tensor.data);
      batch.forEach((index, row) => {
        out[index] = normalize(data.subarray(row * dim, (row + 1) * dim));
      });
      tensor.dispose?.();
      this.embeddedCount += batch.length;
    }
    return out;
  }
}

/** A working transformers embedder, or EMBEDDER_UNAVAILABLE saying why. */
export async function createTransformersEmbedder(
  settings: EmbedderSettings,
  opts: TransformersOptions = {},
): Promise<TransformersEmbedder> {
  const where = locateModel(settings, defaultCacheDir());
  const fail = (why: string, extra: Record<string, unknown> = {}) =>
    new TkomaError('EMBEDDER_UNAVAILABLE', why, { provider: 'transformers', model: where.name, ...extra });

  if (where.mode === 'download') {
    // Probe before importing the library (~0.3 s): offline machines learn it in milliseconds.
    const unreachable = await probe(HF_HOST, opts.probeTimeoutMs ?? 3000);
    if (unreachable) {
      throw fail(
        `model ${where.name} is not in the cache (${where.root}) and ${HF_HOST} is unreachable ` +
          `(${unreachable}); download it elsewhere and point TKOMA_REF_MODEL_DIR at the folder`,
        { cache_dir: where.root },
      );
    }
  }

  let lib: typeof import('@huggingface/transformers');
  try {
    lib = await import('@huggingface/transformers');
  } catch (err) {
    throw fail(`@huggingface/transformers could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { env, pipeline } = lib;

  let dtype = opts.dtype ?? 'fp32';
  if (where.mode === 'local') {
    // Read the folder only: no remote lookups, and no transformers file cache that could shadow it.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.useFSCache = false;
    env.localModelPath = where.root!;
    const found = onnxFile(where.folder!);
    if (!found) throw fail(`no onnx/model.onnx or onnx/model_quantized.onnx in ${where.folder}`);
    if (!opts.dtype) dtype = found.dtype;
  } else {
    // Local lookups off: a stray ./models folder must not shadow the hub model.
    env.allowRemoteModels = true;
    env.allowLocalModels = false;
    env.useFSCache = true;
    env.cacheDir = where.root!;
  }

  let extractor: Extractor;
  try {
    extractor = (await pipeline('feature-extraction', where.id, {
      device: 'cpu',
      dtype,
      // onnxruntime warnings would litter stderr
      session_options: { logSeverityLevel: 3, ...threadOption(opts.threads) },
    })) as unknown as Extractor;
  } catch (err) {
    throw fail(`transformers could not load ${where.name}: ${err instanceof Error ? err.message : String(err)}`);
  }

  const profile = { ...modelProfile(where.name) };
  const pooling = poolingFromFolder(where.folder);
  if (pooling) profile.pooling = pooling;
  // fp32 and quantised weights give slightly different vectors: keep their spaces apart.
  const keyName = dtype === 'fp32' ? where.name : `${where.name}@${dtype}`;
  const source = where.mode === 'download' ? 'download' : settings.modelDir ? 'local' : 'cache';
  const embedder = new TransformersEmbedder(extractor, keyName, profile, source, opts.batchSize ?? 4);
  try {
    return await embedder.init();
  } catch (err) {
    await embedder.close().catch(() => undefined);
    throw fail(`transformers model ${where.name} failed to run: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function threadOption(threads: number | undefined): { intraOpNumThreads?: number } {
  const n = threads ?? envSetting('embedThreads') ?? 0;
  return Number.isInteger(n) && n > 0 ? { intraOpNumThreads: n } : {};
}
