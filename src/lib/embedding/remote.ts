/**
 * Shared shape of the HTTP providers: batching, model prefixes, normalisation, and learning the
 * dimension from one probe call at start-up (the key must be known before any cache lookup, and a
 * probe also proves the server and model are there).
 */
import { TkomaError } from '../errors.js';
import type { Embedder } from './types.js';
import { modelProfile, type ModelProfile } from './profiles.js';
import { batches, embedderKey, normalize } from './vectors.js';

export interface HttpProviderOptions {
  /** Per request; model loading on a cold Ollama can take a while. */
  timeoutMs?: number;
  /** Extra attempts on 429/5xx. */
  retries?: number;
  retryBaseMs?: number;
  /** Inputs per request. */
  batchSize?: number;
}

export const HTTP_DEFAULTS = { timeoutMs: 120_000, retries: 2, retryBaseMs: 500 } as const;

const PROBE_TEXT = 'dimension probe';

export abstract class RemoteEmbedder implements Embedder {
  abstract readonly provider: 'ollama' | 'openai';
  readonly model: string;
  readonly profile: ModelProfile;
  readonly batchSize: number;
  protected readonly where: string;
  private dim = 0;
  /** Number of texts sent to the server (probe included); lets callers and tests count work. */
  embeddedCount = 0;

  protected constructor(model: string, where: string, batchSize: number) {
    this.model = model;
    this.where = where;
    this.profile = modelProfile(model);
    this.batchSize = batchSize;
  }

  /** One request for at most `batchSize` texts; returns raw vectors in input order. */
  protected abstract requestBatch(texts: string[]): Promise<number[][]>;

  get dimension(): number {
    return this.dim;
  }

  get key(): string {
    return embedderKey(this.provider, this.model, this.dim);
  }

  async init(): Promise<this> {
    const [v] = await this.run([PROBE_TEXT]);
    this.dim = v!.length;
    return this;
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    return this.run(texts.map((t) => this.profile.documentPrefix + t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.run([this.profile.queryPrefix + text]);
    return v!;
  }

  async close(): Promise<void> {
    // Stateless HTTP: nothing to release.
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of batches(texts, this.batchSize)) {
      const raw = await this.requestBatch(batch);
      this.embeddedCount += batch.length;
      for (const v of raw) {
        if (this.dim !== 0 && v.length !== this.dim) {
          throw new TkomaError(
            'EMBEDDER_UNAVAILABLE',
            `${this.provider} model ${this.model} at ${this.where} changed dimension from ${this.dim} to ${v.length}`,
            { provider: this.provider, url: this.where },
          );
        }
        out.push(normalize(v));
      }
    }
    return out;
  }
}
