/** Ollama: POST {url}/api/embed {model, input: [...]} → {embeddings: [[...]]}. */
import type { EmbedderSettings } from './types.js';
import { asVectorList, displayUrl, postJson } from './http.js';
import { HTTP_DEFAULTS, RemoteEmbedder, type HttpProviderOptions } from './remote.js';
import { TkomaError } from '../errors.js';

export const OLLAMA_DEFAULT_URL = 'http://127.0.0.1:11434';
export const OLLAMA_DEFAULT_MODEL = 'nomic-embed-text';

/**
 * A base URL from what users write in OLLAMA_HOST or --url: "host", "host:port", or a full URL.
 * Ollama's own default port is assumed when none is given.
 */
export function ollamaBaseUrl(raw: string | undefined): string {
  const value = (raw ?? '').trim();
  if (!value) return OLLAMA_DEFAULT_URL;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new TkomaError('INVALID_URL', `not a usable Ollama address: ${value}`, { url: value });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TkomaError('UNSUPPORTED_SCHEME', `Ollama address must be http or https: ${value}`, { url: value });
  }
  const hasScheme = withScheme === value;
  if (!hasScheme && !/:\d+(\/|$)/.test(value)) u.port = '11434';
  return u.toString().replace(/\/+$/, '');
}

export class OllamaEmbedder extends RemoteEmbedder {
  readonly provider = 'ollama' as const;
  private readonly endpoint: string;
  private readonly opts: Required<Omit<HttpProviderOptions, 'batchSize'>>;

  constructor(settings: EmbedderSettings, opts: HttpProviderOptions = {}) {
    const base = ollamaBaseUrl(settings.url);
    super(settings.model || OLLAMA_DEFAULT_MODEL, displayUrl(base), opts.batchSize ?? 32);
    this.endpoint = `${base}/api/embed`;
    this.opts = {
      timeoutMs: opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
      retries: opts.retries ?? HTTP_DEFAULTS.retries,
      retryBaseMs: opts.retryBaseMs ?? HTTP_DEFAULTS.retryBaseMs,
    };
  }

  protected async requestBatch(texts: string[]): Promise<number[][]> {
    let answer: unknown;
    try {
      answer = await postJson({
        provider: 'ollama',
        url: this.endpoint,
        // truncate: long chunks are cut at the model's context instead of failing the batch.
        body: { model: this.model, input: texts, truncate: true },
        ...this.opts,
      });
    } catch (err) {
      // A 404 that is not about the model means the endpoint itself is missing.
      if (err instanceof TkomaError && err.details.status === 404 && !/model/i.test(err.message)) {
        throw new TkomaError('EMBEDDER_UNAVAILABLE', `${err.message} (is this Ollama 0.3 or newer, with /api/embed?)`, err.details);
      }
      throw err;
    }
    const embeddings = answer && typeof answer === 'object' ? (answer as { embeddings?: unknown }).embeddings : undefined;
    return asVectorList(embeddings, texts.length, 'ollama', this.where);
  }
}

/** A working Ollama embedder, or EMBEDDER_UNAVAILABLE saying why (server down, model not pulled …). */
export async function createOllamaEmbedder(
  settings: EmbedderSettings,
  opts: HttpProviderOptions = {},
): Promise<OllamaEmbedder> {
  return new OllamaEmbedder(settings, opts).init();
}
