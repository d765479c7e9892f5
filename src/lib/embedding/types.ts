/** Providers the user can choose with --embedder, TKOMA_REF_EMBEDDER or the root's config. */
export type EmbedderProvider = 'transformers' | 'use-lite' | 'ollama' | 'openai' | 'none';
export type EmbedderChoice = EmbedderProvider | 'auto';

export interface EmbedderSettings {
  provider: EmbedderChoice;
  /** Model name (provider-specific); each provider has a default. */
  model?: string;
  /** Base URL for ollama / openai providers. */
  url?: string;
  /** API key for openai-compatible servers (from env TKOMA_REF_OPENAI_API_KEY / OPENAI_API_KEY). */
  apiKey?: string;
  /** Local model folder for transformers (TKOMA_REF_MODEL_DIR). */
  modelDir?: string;
  /** Where downloaded models are cached (transformers). */
  cacheDir?: string;
}

/** A working embedding model. Vectors are unit length so inner product is cosine. */
export interface Embedder {
  readonly provider: Exclude<EmbedderProvider, 'none'>;
  readonly model: string;
  readonly dimension: number;
  /** Stable identity of the vector space: vectors with different keys are never mixed. */
  readonly key: string;
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
  close(): Promise<void>;
}
