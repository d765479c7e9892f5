import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { canonicalRequest, makeToken, tokenProblem } from '../../src/lib/approval/token.js';

const secret = randomBytes(32);
const base = {
  topic_id: 'topic-x',
  title: 'X',
  sources: [
    { type: 'git', url: 'file:///r', ref: 'main', paths: ['docs/', 'README.md'] },
    { type: 'web', url: 'http://127.0.0.1/p' },
  ],
};

describe('approval tokens', () => {
  const canonical = canonicalRequest(base);
  const token = makeToken(secret, canonical, 2_000_000_000);

  it('approve exactly the request they were issued for', () => {
    expect(tokenProblem(secret, canonical, token, 1_000)).toBeNull();
    // Path order does not change what is fetched.
    const reordered = canonicalRequest({ ...base, sources: [{ ...base.sources[0], paths: ['README.md', 'docs/'] }, base.sources[1]] });
    expect(tokenProblem(secret, reordered, token, 1_000)).toBeNull();
  });

  it('never approve another request', () => {
    const variants = [
      { ...base, title: 'Y' },
      { ...base, topic_id: 'topic-y' },
      { ...base, sources: [{ ...base.sources[0], ref: 'dev' }, base.sources[1]] },
      { ...base, sources: [{ ...base.sources[0], paths: ['docs/'] }, base.sources[1]] },
      { ...base, sources: [{ ...base.sources[0], paths: undefined }, base.sources[1]] },
      { ...base, sources: [{ ...base.sources[0], url: 'file:///other' }, base.sources[1]] },
      { ...base, sources: [base.sources[0]] },
    ];
    for (const v of variants) expect(tokenProblem(secret, canonicalRequest(v), token, 1_000)).toMatch(/different request/);
  });

  it('refuse expired, forged and malformed tokens, and tokens of another root', () => {
    expect(tokenProblem(secret, canonical, token, 2_000_000_001)).toMatch(/expired/);
    expect(tokenProblem(secret, canonical, token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), 1_000)).toMatch(/different request/);
    expect(tokenProblem(secret, canonical, 'v1.x.y', 1_000)).toMatch(/malformed/);
    expect(tokenProblem(randomBytes(32), canonical, token, 1_000)).toMatch(/different request/);
    // Moving the expiry invalidates the signature.
    const [, , sig] = token.split('.');
    expect(tokenProblem(secret, canonical, `v1.3000000000.${sig}`, 1_000)).toMatch(/different request/);
  });
});
