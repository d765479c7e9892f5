/**
 * OpenAI-compatible servers (OpenAI, llama.cpp, LM Studio, vLLM, LocalAI …):
 * POST {url}/embeddings {model, input: [...]} → {data: [{embedding, index}]}, Bearer key.
 */
import type { EmbedderSettings } from './types.js';
import { asVectorList, displayUrl, postJson } from './http.js';
import { HTTP_DEFAULTS, RemoteEmbedder, type HttpProviderOptions } from './remote.js';
import { TkomaError } from '../errors.js';

export const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1';
export const OPENAI_DEFAULT_MODEL = 'text-embedding-3-small';

/** Accepts ".../v1", ".../v1/" and ".../v1/embeddings" alike. */
export function openaiBaseUrl(raw: string | undefined): string {
  const value = (raw ?? '').trim() || OPENAI_DEFAULT_URL;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new TkomaError('INVALID_URL', `not a usable OpenAI-compatible base URL: ${value}`, { url: value });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TkomaError('UNSUPPORTED_SCHEME', `OpenAI-compatible base URL must be http or https: ${value}`, {
      url: value,
    });
  }
  return value.replace(/\/+$/, '').replace(/\/embeddings$/, '');
}

/**
 * The data list ordered by `index` (the API does not promise input order), checked to cover
 * every input exactly once.
 */
export function orderByIndex(data: unknown, count: number, where: string): unknown[] {
  const bad = (why: string) =>
    new TkomaError('EMBEDDER_UNAVAILABLE', `openai server at ${where} sent a malformed answer: ${why}`, {
      provider: 'openai',
      url: where,
    });
  if (!Array.isArray(data)) throw bad('no data list');
  const out: unknown[] = new Array(count);
  data.forEach((item: unknown, position) => {
    const rec = item as { embedding?: unknown; index?: unknown } | null;
    // Servers that omit index are taken to answer in input order.
    const index = rec && typeof rec.index === 'number' ? rec.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count) throw bad(`index ${String(index)} out of range`);
    if (out[index] !== undefined) throw bad(`index ${index} twice`);
    out[index] = rec?.embedding;
  });
  if (data.length !== count) throw bad(`${data.length} embeddings for ${count} inputs`);
  return out;
}

export class OpenAIEmbedder extends RemoteEmbedder {
  readonly provider = 'openai' as const;
  private readonly endpoint: string;
  private readonly apiKey: string | undefined;
  private readonly opts: Required<Omit<HttpProviderOptions, 'batchSize'>>;

  constructor(settings: EmbedderSettings, opts: HttpProviderOptions = {}) {
    const base = openaiBaseUrl(settings.url);
    super(settings.model || OPENAI_DEFAULT_MODEL, displayUrl(base), opts.batchSize ?? 64);
    this.endpoint = `${base}/embeddings`;
    this.apiKey = settings.apiKey || undefined;
    this.opts = {
      timeoutMs: opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
      retries: opts.retries ?? HTTP_DEFAULTS.retries,
      retryBaseMs: opts.retryBaseMs ?? HTTP_DEFAULTS.retryBaseMs,
    };
    if (!this.apiKey && new URL(base).hostname === 'api.openai.com') {
      throw new TkomaError(
        'EMBEDDER_UNAVAILABLE',
        'the openai embedder needs an API key: set TKOMA_REF_OPENAI_API_KEY or OPENAI_API_KEY',
        { provider: 'openai', url: this.where },
      );
    }
  }

  protected async requestBatch(texts: string[]): Promise<number[][]> {
    const answer = await postJson({
      provider: 'openai',
      url: this.endpoint,
      body: { model: this.model, input: texts, encoding_format: 'float' },
      headers: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
      ...this.opts,
    });
    const data = answer && typeof answer === 'object' ? (answer as { data?: unknown }).data : undefined;
    return asVectorList(orderByIndex(data, texts.length, this.where), texts.length, 'openai', this.where);
  }
}

/** A working OpenAI-compatible embedder, or EMBEDDER_UNAVAILABLE saying why. */
export async function createOpenAIEmbedder(
  settings: EmbedderSettings,
  opts: HttpProviderOptions = {},
): Promise<OpenAIEmbedder> {
  return new OpenAIEmbedder(settings, opts).init();
}
