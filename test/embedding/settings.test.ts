import { describe, expect, it } from 'vitest';
import { createEmbedder, settingsFromEnv } from '../../src/lib/embedding/index.js';
import { ollamaBaseUrl } from '../../src/lib/embedding/ollama.js';
import { openaiBaseUrl, orderByIndex } from '../../src/lib/embedding/openai.js';
import { serverMessage, displayUrl } from '../../src/lib/embedding/http.js';
import { TkomaError } from '../../src/lib/errors.js';

const HOME = { HOME: '/home/u' };

describe('settingsFromEnv', () => {
  it('defaults to auto with an XDG model cache', () => {
    expect(settingsFromEnv(HOME)).toEqual({ provider: 'auto', cacheDir: '/home/u/.cache/tkoma-ref/models' });
    expect(settingsFromEnv({ ...HOME, XDG_CACHE_HOME: '/x' }).cacheDir).toBe('/x/tkoma-ref/models');
    expect(settingsFromEnv(HOME, { cacheDir: '/c' }).cacheDir).toBe('/c');
  });

  it('flag beats environment beats config', () => {
    const config = { provider: 'ollama' as const };
    expect(settingsFromEnv(HOME, config).provider).toBe('ollama');
    expect(settingsFromEnv({ ...HOME, TKOMA_REF_EMBEDDER: 'openai' }, config).provider).toBe('openai');
    expect(settingsFromEnv({ ...HOME, TKOMA_REF_EMBEDDER: 'openai' }, config, 'none').provider).toBe('none');
  });

  it('reads model, url, model dir and keys from the environment', () => {
    const s = settingsFromEnv({
      ...HOME,
      TKOMA_REF_EMBEDDER: 'openai',
      TKOMA_REF_EMBED_MODEL: 'm',
      TKOMA_REF_EMBED_URL: 'http://h/v1',
      TKOMA_REF_MODEL_DIR: '/models',
      OPENAI_API_KEY: 'k1',
    });
    expect(s).toMatchObject({ provider: 'openai', model: 'm', url: 'http://h/v1', modelDir: '/models', apiKey: 'k1' });
    expect(settingsFromEnv({ ...HOME, OPENAI_API_KEY: 'k1', TKOMA_REF_OPENAI_API_KEY: 'k2' }).apiKey).toBe('k2');
  });

  it('environment model and url beat the config ones', () => {
    const s = settingsFromEnv({ ...HOME, TKOMA_REF_EMBED_MODEL: 'env-model' }, { model: 'cfg-model', url: 'http://cfg' });
    expect(s.model).toBe('env-model');
    expect(s.url).toBe('http://cfg');
  });

  it('does not carry a model chosen for another provider', () => {
    const config = { provider: 'ollama' as const, model: 'nomic-embed-text', url: 'http://o:1' };
    const s = settingsFromEnv(HOME, config, 'transformers');
    expect(s.provider).toBe('transformers');
    expect(s.model).toBeUndefined();
    expect(s.url).toBeUndefined();
    expect(settingsFromEnv(HOME, config).model).toBe('nomic-embed-text');
  });

  it('uses OLLAMA_HOST only for ollama and only without a more specific url', () => {
    expect(settingsFromEnv({ ...HOME, OLLAMA_HOST: 'gpu:11434' }, {}, 'ollama').url).toBe('gpu:11434');
    expect(settingsFromEnv({ ...HOME, OLLAMA_HOST: 'gpu:11434' }, {}, 'openai').url).toBeUndefined();
    expect(
      settingsFromEnv({ ...HOME, OLLAMA_HOST: 'gpu:11434' }, { provider: 'ollama', url: 'http://cfg:1' }).url,
    ).toBe('http://cfg:1');
  });

  it('treats empty variables as unset and accepts any case', () => {
    expect(settingsFromEnv({ ...HOME, TKOMA_REF_EMBEDDER: '', TKOMA_REF_EMBED_MODEL: ' ' })).toEqual(settingsFromEnv(HOME));
    expect(settingsFromEnv(HOME, {}, 'USE-Lite').provider).toBe('use-lite');
  });

  it('rejects an unknown provider with INVALID_ENUM naming the source', () => {
    for (const [env, flag, from] of [
      [{ TKOMA_REF_EMBEDDER: 'bert' }, undefined, 'TKOMA_REF_EMBEDDER'],
      [{}, 'gpt', '--embedder'],
    ] as const) {
      try {
        settingsFromEnv({ ...HOME, ...env }, {}, flag);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(TkomaError);
        expect((err as TkomaError).code).toBe('INVALID_ENUM');
        expect((err as TkomaError).message).toContain(from);
        expect((err as TkomaError).details.allowed).toContain('use-lite');
      }
    }
  });
});

describe('createEmbedder', () => {
  it("returns null for 'none'", async () => {
    expect(await createEmbedder({ provider: 'none' })).toBeNull();
  });
});

describe('provider URL handling', () => {
  it('ollamaBaseUrl accepts what OLLAMA_HOST holds', () => {
    expect(ollamaBaseUrl(undefined)).toBe('http://127.0.0.1:11434');
    expect(ollamaBaseUrl('gpu')).toBe('http://gpu:11434');
    expect(ollamaBaseUrl('gpu:8080')).toBe('http://gpu:8080');
    expect(ollamaBaseUrl('0.0.0.0:80')).toBe('http://0.0.0.0');
    expect(ollamaBaseUrl('https://ollama.example/')).toBe('https://ollama.example');
    expect(() => ollamaBaseUrl('ftp://x')).toThrow(TkomaError);
  });

  it('openaiBaseUrl strips trailing slashes and an /embeddings suffix', () => {
    expect(openaiBaseUrl(undefined)).toBe('https://api.openai.com/v1');
    expect(openaiBaseUrl('http://h:1/v1/')).toBe('http://h:1/v1');
    expect(openaiBaseUrl('http://h:1/v1/embeddings')).toBe('http://h:1/v1');
    expect(() => openaiBaseUrl('not a url')).toThrow(TkomaError);
  });

  it('displayUrl hides credentials', () => {
    expect(displayUrl('http://user:secret@h:1/v1')).toBe('http://h:1/v1');
  });

  it('serverMessage reads both error shapes', () => {
    expect(serverMessage('{"error":"model not found"}')).toBe('model not found');
    expect(serverMessage('{"error":{"message":"bad key","type":"auth"}}')).toBe('bad key');
    expect(serverMessage('plain failure')).toBe('plain failure');
    expect(serverMessage('x'.repeat(1000)).length).toBeLessThan(310);
  });

  it('orderByIndex restores input order and rejects gaps and duplicates', () => {
    expect(orderByIndex([{ index: 1, embedding: 'b' }, { index: 0, embedding: 'a' }], 2, 'w')).toEqual(['a', 'b']);
    expect(() => orderByIndex([{ index: 0, embedding: 'a' }, { index: 0, embedding: 'b' }], 2, 'w')).toThrow(/twice/);
    expect(() => orderByIndex([{ index: 2, embedding: 'a' }], 1, 'w')).toThrow(/range/);
    expect(() => orderByIndex([{ index: 0, embedding: 'a' }], 2, 'w')).toThrow(/1 embeddings for 2/);
  });
});
