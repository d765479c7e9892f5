/** The real Universal Sentence Encoder Lite model shipped in npm. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../src/lib/embedding/index.js';
import { createUseLiteEmbedder, USE_LITE_MAX_CHARS, type UseLiteEmbedder } from '../../src/lib/embedding/use-lite.js';
import type { Embedder } from '../../src/lib/embedding/types.js';
import { cosine, maxAbsDiff, norm } from '../helpers/tmp.js';

let e: UseLiteEmbedder;
beforeAll(async () => {
  e = await createUseLiteEmbedder();
});

describe('use-lite provider', () => {
  it('reports its vector space', () => {
    expect(e.dimension).toBe(512);
    expect(e.key).toBe('use-lite:universal-sentence-encoder-lite.ws:512');
  });

  it('scores a paraphrase pair clearly above an unrelated pair', async () => {
    const [a, b, c, d] = await e.embedDocuments([
      'How do I install the package with npm?',
      'What is the command to add this library using npm install?',
      'The recipe needs two cups of flour and three eggs.',
      'Clone the git repository and check out the release branch.',
    ]);
    const paraphrase = cosine(a!, b!);
    expect(paraphrase).toBeGreaterThan(0.5);
    expect(paraphrase - cosine(a!, c!)).toBeGreaterThan(0.3);
    expect(paraphrase).toBeGreaterThan(cosine(a!, d!));
  });

  it('queries land near the documents that answer them', async () => {
    const docs = await e.embedDocuments([
      'To read a file asynchronously, call fs.promises.readFile with the path and an encoding.',
      'The garden needs watering twice a week during the summer months.',
    ]);
    const q = await e.embedQuery('how to read a file in node');
    expect(cosine(q, docs[0]!)).toBeGreaterThan(cosine(q, docs[1]!));
  });

  it('returns unit vectors, survives empty input, and batches like singles', async () => {
    const texts = ['', '   ', 'short', 'a somewhat longer sentence about parsing configuration files'];
    const batch = await e.embedDocuments(texts);
    expect(batch).toHaveLength(4);
    for (const v of batch) expect(norm(v)).toBeCloseTo(1, 4);
    const [single] = await e.embedDocuments([texts[3]!]);
    expect(maxAbsDiff(single!, batch[3]!)).toBeLessThan(1e-4);
  });

  it('only the first characters of a long input count', async () => {
    const head = 'Configure the HTTP server timeout and the retry policy. '.repeat(60).slice(0, USE_LITE_MAX_CHARS);
    const [a, b] = await e.embedDocuments([`${head} gardening tips`, `${head} ${'unrelated tail words '.repeat(200)}`]);
    expect(maxAbsDiff(a!, b!)).toBeLessThan(1e-5);
  });

  it('is what createEmbedder gives for use-lite, sharing one loaded model', async () => {
    const made = (await createEmbedder({ provider: 'use-lite' })) as Embedder;
    expect(made.key).toBe(e.key);
    const [x] = await made.embedDocuments(['same text']);
    const [y] = await e.embedDocuments(['same text']);
    expect(maxAbsDiff(x!, y!)).toBeLessThan(1e-6);
  });
});
