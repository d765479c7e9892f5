/**
 * Automatic choice on this machine: Hugging Face is unreachable and no model is cached, so
 * transformers must give up quickly and use-lite must be chosen, with the reason reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createEmbedder, resolveAuto } from '../../src/lib/embedding/index.js';
import { tinyModelAt, tmpDir } from '../helpers/tmp.js';

let tmp: ReturnType<typeof tmpDir>;
beforeAll(() => {
  tmp = tmpDir();
});
afterAll(() => tmp.cleanup());

describe('resolveAuto', () => {
  it('falls back to use-lite and says why transformers was skipped', async () => {
    const cacheDir = join(tmp.dir, 'empty-cache');
    const { embedder, tried } = await resolveAuto({ provider: 'auto', cacheDir });
    expect(embedder?.provider).toBe('use-lite');
    expect(tried).toHaveLength(1);
    expect(tried[0]!.provider).toBe('transformers');
    expect(tried[0]!.reason).toContain('not in the cache');
    expect(tried[0]!.reason).toContain(cacheDir);
    expect(tried[0]!.reason).toMatch(/unreachable/);
    expect(tried[0]!.reason).toContain('TKOMA_REF_MODEL_DIR');
  });

  it('picks transformers when a local model folder is configured', async () => {
    const modelDir = tinyModelAt(tmp.dir, 'tiny-bert');
    const { embedder, tried } = await resolveAuto({ provider: 'auto', modelDir, cacheDir: join(tmp.dir, 'c') });
    expect(tried).toEqual([]);
    expect(embedder?.key).toBe('transformers:tiny-bert:32');
    await embedder?.close();
  });

  it('falls back past a broken model folder, reporting the folder problem', async () => {
    const { embedder, tried } = await resolveAuto({ provider: 'auto', modelDir: join(tmp.dir, 'missing') });
    expect(embedder?.provider).toBe('use-lite');
    expect(tried[0]!.reason).toContain(join(tmp.dir, 'missing'));
  });

  it("createEmbedder('auto') returns the resolved embedder", async () => {
    const e = await createEmbedder({ provider: 'auto', cacheDir: join(tmp.dir, 'empty-cache') });
    expect(e?.provider).toBe('use-lite');
  });

  it('an explicit transformers request without a reachable model is EMBEDDER_UNAVAILABLE', async () => {
    const err = await createEmbedder({ provider: 'transformers', cacheDir: join(tmp.dir, 'empty-cache') }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
    expect((err as Error).message).toMatch(/huggingface\.co.*unreachable/);
  });
});
