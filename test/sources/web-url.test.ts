import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TkomaError } from '../../src/lib/errors.js';
import { urlSlug, validateWebUrl } from '../../src/lib/sources/web.js';

function refusal(url: string): TkomaError {
  try {
    validateWebUrl(url);
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError);
    return err as TkomaError;
  }
  throw new Error(`expected ${JSON.stringify(url)} to be refused`);
}

describe('validateWebUrl', () => {
  it('accepts http and https URLs with a host, including loopback', () => {
    expect(validateWebUrl('https://dioxuslabs.com/learn/0.6/guide/?x=1#a').hostname).toBe('dioxuslabs.com');
    expect(validateWebUrl('http://127.0.0.1:8080/x').port).toBe('8080');
    expect(validateWebUrl('HTTPS://Example.COM').href).toBe('https://example.com/');
  });

  it('refuses other schemes with UNSUPPORTED_SCHEME and the scheme', () => {
    for (const [url, scheme] of [
      ['file:///etc/passwd', 'file'],
      ['ext::sh -c touch% /tmp/pwned', 'ext'],
      ['javascript:alert(1)', 'javascript'],
      ['data:text/html,<h1>x</h1>', 'data'],
      ['ftp://example.com/file', 'ftp'],
      ['git@github.com:owner/repo.git', undefined],
    ] as const) {
      const err = refusal(url);
      if (scheme) {
        expect(err.code, url).toBe('UNSUPPORTED_SCHEME');
        expect(err.details.scheme, url).toBe(scheme);
      } else {
        expect(err.code, url).toBe('INVALID_URL');
      }
    }
  });

  it('refuses option-like, credentialed, spaced, control-character and host-less URLs', () => {
    for (const url of [
      '-x',
      '--upload-pack=touch /tmp/x',
      'https://user:secret@example.com/',
      'https://token@example.com/',
      'https://example.com/a b',
      ' https://example.com/',
      'https://example.com/\n',
      'https://example.com/\u0000',
      'https://exa\tmple.com/',
      'http://',
      'example.com/no-scheme',
      '',
      `https://example.com/${'a'.repeat(5000)}`,
    ]) {
      expect(refusal(url).code, JSON.stringify(url)).toBe('INVALID_URL');
    }
  });

  it('never echoes credentials back in error details', () => {
    const err = refusal('https://user:secret@example.com/docs');
    expect(JSON.stringify(err.toJSON())).not.toContain('secret');
  });
});

describe('urlSlug', () => {
  const VALID = /^[a-z0-9][a-z0-9._-]*$/;

  it('joins host and path, hashing the query', () => {
    expect(urlSlug('https://dioxuslabs.com/learn/0.6/guide/')).toBe('dioxuslabs.com-learn-0.6-guide');
    const withQuery = urlSlug('https://dioxuslabs.com/learn/0.6/guide/?x=1#a');
    expect(withQuery).toMatch(/^dioxuslabs\.com-learn-0\.6-guide-[0-9a-f]{8}$/);
    expect(urlSlug('https://dioxuslabs.com/learn/0.6/guide/?x=2')).not.toBe(withQuery);
    expect(urlSlug('https://dioxuslabs.com/learn/0.6/guide/#other')).toBe('dioxuslabs.com-learn-0.6-guide');
  });

  it('is lower-case, drops page extensions, keeps ports', () => {
    expect(urlSlug('https://Docs.RS/Tokio/Latest/index.html')).toBe('docs.rs-tokio-latest-index');
    expect(urlSlug('http://127.0.0.1:4000/README.md')).toBe('127.0.0.1-4000-readme');
    expect(urlSlug('https://example.com/')).toBe('example.com');
  });

  it('never yields dot segments, slashes or leading dots', () => {
    expect(urlSlug('https://example.com/a/../../etc/passwd')).toBe('example.com-etc-passwd');
    expect(urlSlug('https://example.com/%2e%2e/%2e%2e/x')).not.toMatch(/\.\./);
    expect(urlSlug('...')).toMatch(VALID);
    expect(urlSlug('')).toBe('page');
    expect(urlSlug('https://example.com/..%2F..%2Fsecret')).toMatch(VALID);
  });

  it('keeps non-ASCII paths apart with a hash', () => {
    const a = urlSlug('https://example.jp/ドキュメント');
    const b = urlSlug('https://example.jp/ガイド');
    expect(a).toMatch(VALID);
    expect(a).not.toBe(b);
  });

  it('bounds long slugs with a hash of the whole URL', () => {
    const long = `https://example.com/${'segment/'.repeat(40)}`;
    const slug = urlSlug(long);
    expect(slug.length).toBeLessThanOrEqual(100);
    expect(slug).toMatch(/-[0-9a-f]{8}$/);
    expect(urlSlug(`${long}x`)).not.toBe(slug);
  });

  it('property: any input gives a safe, bounded, deterministic name', () => {
    const input = fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ maxLength: 300 }));
    fc.assert(
      fc.property(input, (url) => {
        const slug = urlSlug(url);
        expect(slug).toMatch(VALID);
        expect(slug).not.toContain('..');
        expect(slug).not.toContain('/');
        expect(slug.length).toBeLessThanOrEqual(100);
        expect(slug.length).toBeGreaterThan(0);
        expect(urlSlug(url)).toBe(slug);
      }),
      { numRuns: 500 },
    );
  });
});
