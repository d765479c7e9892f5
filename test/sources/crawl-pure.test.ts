import { describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { parseLlmsTxt, parseRobots, parseSitemap } from '../../src/lib/sources/crawl/discovery.js';
import { parseCrawl } from '../../src/lib/sources/crawl/options.js';
import { judgeUrl, pageFileName, scopeFor } from '../../src/lib/sources/crawl/urls.js';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (err) {
    return err instanceof TkomaError ? `${err.code}: ${err.message}` : String(err);
  }
  return undefined;
};

describe('the crawl option', () => {
  it('{} and true mean the defaults; absent and false mean one page', () => {
    const defaults = { scope: 'prefix', max_pages: 200, max_depth: 5 };
    expect(parseCrawl({}, 0)).toEqual(defaults);
    expect(parseCrawl(true, 0)).toEqual(defaults);
    expect(parseCrawl(undefined, 0)).toBeUndefined();
    expect(parseCrawl(false, 0)).toBeUndefined();
    expect(parseCrawl({ scope: 'host', include: ['/docs/**'], exclude: ['/docs/old/**'], max_pages: 50, max_depth: 2 }, 0)).toEqual({
      scope: 'host', include: ['/docs/**'], exclude: ['/docs/old/**'], max_pages: 50, max_depth: 2,
    });
    // A root whose cap is under the default gets its cap as the default.
    expect(parseCrawl({}, 0, 100)?.max_pages).toBe(100);
  });

  it('refuses bad values with INVALID_INPUT naming the field', () => {
    expect(codeOf(() => parseCrawl({ scope: 'site' }, 1))).toMatch(/^INVALID_INPUT: sources\[1\]\.crawl\.scope must be "prefix" or "host"/);
    expect(codeOf(() => parseCrawl({ max_pages: 0 }, 0))).toMatch(/max_pages must be a whole number/);
    expect(codeOf(() => parseCrawl({ max_pages: 5000 }, 0))).toMatch(/over the cap of 1000 \(raise `\[crawl\] max_pages_cap` in tkoma-ref\.toml\)/);
    expect(codeOf(() => parseCrawl({ max_pages: 300 }, 0, 250))).toMatch(/over the cap of 250/);
    expect(codeOf(() => parseCrawl({ include: '/docs/**' }, 0))).toMatch(/include must be an array/);
    expect(codeOf(() => parseCrawl({ depth: 3 }, 0))).toMatch(/unknown field\(s\) depth/);
    expect(codeOf(() => parseCrawl([], 0))).toMatch(/must be an object/);
  });
});

describe('URLs of a crawl', () => {
  const start = new URL('https://docs.example.com/learn/0.6/');
  const scope = scopeFor(start, { scope: 'prefix' });

  it('the prefix is the start URL\'s folder', () => {
    expect(scope.prefix).toBe('/learn/0.6/');
    expect(scopeFor(new URL('https://h/learn/0.6'), { scope: 'prefix' }).prefix).toBe('/learn/0.6/');
    expect(scopeFor(new URL('https://h/guide/intro.html'), { scope: 'prefix' }).prefix).toBe('/guide/');
    expect(scopeFor(new URL('https://h/guide/intro.html'), { scope: 'host' }).prefix).toBe('/');
  });

  it('collapses fragments, trailing slashes, index.html, .html/.md twins and tracking parameters into one key', () => {
    const keys = ['/learn/0.6/a', '/learn/0.6/a/', '/learn/0.6/a#x', '/learn/0.6/a?utm_source=x&utm_medium=y', '/learn/0.6/a/index.html', '/learn/0.6/a.html', '/learn/0.6/a.md', 'HTTPS://DOCS.example.com/learn/0.6/a?ref=nav']
      .map((p) => judgeUrl(p, scope, 'https://docs.example.com/'))
      .map((v) => (v.ok ? v.key : v.reason));
    expect(new Set(keys)).toEqual(new Set(['https://docs.example.com/learn/0.6/a']));
    expect(judgeUrl('/learn/0.6', scope, start.href)).toMatchObject({ ok: true, key: 'https://docs.example.com/learn/0.6' });
  });

  it('says why a URL is left out', () => {
    const reason = (u: string) => {
      const v = judgeUrl(u, scope, start.href);
      return v.ok ? 'ok' : v.reason;
    };
    expect(reason('/learn/0.5/a')).toBe('out_of_scope');
    expect(reason('/learn/0.60/a')).toBe('out_of_scope');
    expect(reason('https://other.example.com/learn/0.6/a')).toBe('out_of_scope');
    expect(reason('http://docs.example.com/learn/0.6/a')).toBe('out_of_scope'); // another origin
    expect(reason('/learn/0.6/search?q=state')).toBe('query');
    expect(reason('/learn/0.6/img/logo.png')).toBe('not_a_page');
    expect(reason('mailto:a@b.c')).toBe('not_http');
    expect(reason('javascript:alert(1)')).toBe('not_http');
    const filtered = scopeFor(start, { scope: 'prefix', include: ['/learn/0.6/guide/**'], exclude: ['**/old/**'] });
    expect(judgeUrl('/learn/0.6/guide/old/x', filtered, start.href)).toMatchObject({ ok: false, reason: 'excluded' });
    expect(judgeUrl('/learn/0.6/api/x', filtered, start.href)).toMatchObject({ ok: false, reason: 'not_included' });
    expect(judgeUrl('/learn/0.6/guide/x', filtered, start.href).ok).toBe(true);
  });

  it('names files after the URL path under a folder per site', () => {
    expect(pageFileName('https://dioxuslabs.com/learn/0.6/guide/state')).toBe('dioxuslabs.com/learn/0.6/guide/state.md');
    expect(pageFileName('https://dioxuslabs.com/')).toBe('dioxuslabs.com/index.md');
    expect(pageFileName('http://127.0.0.1:8080/docs/a%20b')).toBe('127.0.0.1-8080/docs/a-b.md');
    expect(pageFileName('https://h/..%2F..%2Fetc/passwd')).toBe('h/etc/passwd.md');
    expect(pageFileName('https://h/.git/config')).toBe('h/git/config.md');
  });
});

describe('what a site says about itself', () => {
  it('robots.txt: our group or *, Allow over a broader Disallow, Crawl-delay, Sitemap lines', () => {
    const rules = parseRobots('https://h/robots.txt', [
      'User-agent: *',
      'Disallow: /private/',
      'Allow: /private/public-page',
      'Crawl-delay: 0.5',
      'Sitemap: https://h/sitemap-index.xml',
    ].join('\n'));
    expect(rules.allowed('https://h/docs/a')).toBe(true);
    expect(rules.allowed('https://h/private/x')).toBe(false);
    expect(rules.allowed('https://h/private/public-page')).toBe(true);
    expect(rules.crawlDelay).toBe(0.5);
    expect(rules.sitemaps).toEqual(['https://h/sitemap-index.xml']);
    const ours = parseRobots('https://h/robots.txt', 'User-agent: tkoma-ref\nDisallow: /\n\nUser-agent: *\nAllow: /\n');
    expect(ours.allowed('https://h/docs/a')).toBe(false);
    expect(parseRobots('https://h/robots.txt', null).allowed('https://h/x')).toBe(true);
  });

  it('sitemaps and sitemap indexes', () => {
    const index = parseSitemap('<?xml version="1.0"?><sitemapindex><sitemap><loc>https://h/s1.xml</loc></sitemap><sitemap><loc> /s2.xml </loc></sitemap></sitemapindex>', 'https://h/sitemap.xml');
    expect(index).toEqual({ kind: 'index', urls: ['https://h/s1.xml', 'https://h/s2.xml'] });
    const set = parseSitemap('<urlset><url><loc>https://h/a?x=1&amp;y=2</loc><lastmod>2024</lastmod></url><url><loc><![CDATA[https://h/b]]></loc></url><url><loc>http://</loc></url></urlset>', 'https://h/s1.xml');
    expect(set).toEqual({ kind: 'urlset', urls: ['https://h/a?x=1&y=2', 'https://h/b'] });
  });

  it('llms.txt links', () => {
    const text = '# Site\n\n> About.\n\n## Docs\n\n- [Intro](/docs/intro.md): start here\n- [API](https://h/docs/api "API")\n\n## Optional\n\n- [Blog](<https://h/blog>)\n';
    expect(parseLlmsTxt(text, 'https://h/llms.txt')).toEqual(['https://h/docs/intro.md', 'https://h/docs/api', 'https://h/blog']);
  });
});
