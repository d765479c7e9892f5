/**
 * A documentation site crawled from one URL (issue 28), through the built binary against a real
 * site on 127.0.0.1 (test/helpers/docs-site.ts): phase 1 reads only robots.txt, llms.txt and
 * sitemaps; phase 2 keeps exactly the site's pages in scope and lists what it left out, and why.
 */
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DOC_PACKAGES, type DocsSite, docsSite } from '../helpers/docs-site.js';
import { cli, git, operatorApproves, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const abs = join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else out.push(relative(dir, abs));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * /docs/slow never answers: every crawl and refresh here waits out its deadline, 20 s by default.
 * A few seconds still tell a page that never answers from the local pages, which answer at once.
 */
const env = { TKOMA_REF_WEB_TIMEOUT: '3' };

describe('crawling a documentation site (CLI, real site on 127.0.0.1)', () => {
  const tmp = tmpDir('tkoma-crawl-');
  const root = join(tmp.path, 'kb');
  const id = 'topic-test-docs';
  let site: DocsSite;
  let request: Record<string, unknown>;
  let folder: string;

  beforeAll(async () => {
    site = await docsSite();
    folder = `127.0.0.1-${new URL(site.base).port}`;
    request = { title: 'Test docs', body: '# Test docs\n\nGuides.\n', topic_id: id, max_age_days: 30, sources: [{ type: 'web', url: `${site.base}/docs/`, crawl: {} }] };
    await freshRoot(root);
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  let requestId = '';
  it('phase 1 reads robots.txt, llms.txt and sitemaps, never a page, and shows the bound', async () => {
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request)], { root, env });
    expect(r.code, r.stderr).toBe(4);
    const crawl = r.json.sources[0].crawl;
    expect(crawl).toMatchObject({ scope: 'prefix', max_pages: 200, max_depth: 5, robots_txt: true, llms_txt: `${site.base}/llms.txt`, crawl_delay_s: 0.1 });
    expect(crawl.bound).toBe(`up to 200 pages under ${site.base}/docs/ (link depth 5)`);
    expect(crawl.sitemaps).toEqual([`${site.base}/sitemap-index.xml`, `${site.base}/sitemaps/guides.xml`, `${site.base}/sitemaps/other.xml`]);
    // The six guides (llms.txt and the sitemap name each: one page each), the index, and /docs/gone.
    expect(crawl.found).toBe(DOC_PACKAGES.length + 2);
    expect(crawl.left_out).toMatchObject({ robots: 1, out_of_scope: 1 });
    expect(r.json.summary).toContain(`crawl of up to 200 pages under ${site.base}/docs/`);
    const pagesAsked = site.log.filter((l) => l.startsWith('GET /docs') && !l.startsWith('GET /docs/llms.txt '));
    expect(pagesAsked).toEqual([]);
    requestId = r.json.request_id;
  });

  it("the operator's yes to the crawl does not approve a bigger crawl", async () => {
    await operatorApproves(root, requestId);
    const bigger = { ...request, sources: [{ type: 'web', url: `${site.base}/docs/`, crawl: { max_pages: 500 } }] };
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(bigger)], { root, env });
    expect(r.code).toBe(4);
    expect(r.json.request_id).not.toBe(requestId);
  });

  it('phase 2 keeps exactly the pages in scope, one file per page, and lists what it left out', async () => {
    site.log.length = 0;
    const r = await cli(['topic', 'create', '--json', '--input', JSON.stringify(request)], { root, env });
    expect(r.code, r.stderr).toBe(0);
    const dir = join(root, 'references', id);
    const pages = filesUnder(dir).filter((f) => f.startsWith(`${folder}/`));
    expect(pages).toEqual(
      [
        'docs.md', 'docs/a.md', 'docs/deep.md', 'docs/loop-1.md', 'docs/loop-2.md', 'docs/moved-here.md',
        ...DOC_PACKAGES.map((p) => `docs/${p}.md`),
      ].map((p) => `${folder}/${p}`).sort(),
    );
    const crawl = r.json.sources[0].crawl;
    const left = Object.fromEntries(crawl.skipped_pages.map((s: { url: string; reason: string }) => [new URL(s.url).pathname + new URL(s.url).search, s.reason]));
    expect(left).toEqual({
      '/docs/private/secret': 'robots',
      '/docs/private/hidden': 'robots',
      '/docs/search?q=glob': 'query',
      '/docs/forbidden': 'http_403',
      '/docs/slow': 'timeout',
      '/docs/away': 'redirect_out_of_scope',
      '/docs/gone': 'http_404',
    });
    expect(crawl.pages).toBe(pages.length);
    // One request per page, whatever its spellings (/docs/a, /docs/a/, #usage, ?utm_source): never the loop twice.
    const gets = site.log.filter((l) => l.startsWith('GET /docs/'));
    expect(gets.filter((l) => /^GET \/docs\/a[/?#\s]/.test(l))).toHaveLength(1);
    expect(gets.filter((l) => l.startsWith('GET /docs/loop-1 '))).toHaveLength(1);
    expect(site.log.some((l) => l.startsWith('GET /docs/private/'))).toBe(false);
    expect(site.log.some((l) => l.startsWith('GET /blog'))).toBe(false);
    // The page as text: the README's code and tables, not the site's chrome.
    const guide = readFileSync(join(dir, folder, 'docs', 'minimatch.md'), 'utf8');
    expect(guide).toContain('```');
    expect(guide).not.toContain('Copyright footer');
    // The manifest records each page's URL and validators.
    const manifest = readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const rec = manifest.find((m) => m.path === `${folder}/docs/minimatch.md`);
    expect(rec).toMatchObject({ page_url: `${site.base}/docs/minimatch`, etag: '"minimatch-v1"', source_url: `${site.base}/docs/` });
    expect(rec.last_modified).toMatch(/GMT$/);
    expect(manifest.find((m) => m.path === `${folder}/docs/moved-here.md`)).toMatchObject({ final_url: `${site.base}/docs/moved-here` });
    const skippedFile = readFileSync(join(dir, '.tkoma-skipped.jsonl'), 'utf8');
    expect(skippedFile).toContain('"reason":"http_403"');
    expect(readFileSync(join(dir, 'topic.md'), 'utf8')).toMatch(/crawl_scope = "prefix"\ncrawl_max_pages = 200\ncrawl_max_depth = 5/);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('the crawled site is searchable', async () => {
    const r = await cli(['search', 'brace expansion glob pattern', '--topic', id, '--json'], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.results[0].path).toMatch(new RegExp(`^${folder}/docs/(minimatch|picomatch)\\.md$`));
  });

  it('refresh asks with If-None-Match / If-Modified-Since: 304 pages stay, changed ones are rewritten, gone ones removed and listed, new ones added', async () => {
    const dir = join(root, 'references', id);
    const before = readFileSync(join(dir, folder, 'docs', 'picomatch.md'), 'utf8');
    site.setPage('minimatch', '# minimatch, rewritten\n\nThe guide changed upstream: brace expansion moved.\n');
    site.setPage('semver', null); // gone: 404 from now on, and out of the sitemap
    site.setPage('new-guide', '# A new guide\n\nAppeared after the first crawl.\n'); // in the sitemap from now on
    site.log.length = 0;
    site.notModified.length = 0;

    const dry = await cli(['refresh', id, '--dry-run', '--json'], { root, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json.topics[0]).toMatchObject({ added: [`${folder}/docs/new-guide.md`], changed: [`${folder}/docs/minimatch.md`], removed: [`${folder}/docs/semver.md`] });
    expect(readFileSync(join(dir, folder, 'docs', 'minimatch.md'), 'utf8')).not.toContain('rewritten');

    site.log.length = 0;
    site.notModified.length = 0;
    const r = await cli(['refresh', id, '--json'], { root, env });
    expect(r.code, r.stderr).toBe(0);
    const result = r.json.topics[0];
    expect(result).toMatchObject({ added: 1, changed: 1, removed: 1 });
    const crawl = result.sources[0].crawl;
    expect(crawl.added).toEqual([`${folder}/docs/new-guide.md`]);
    expect(crawl.changed).toEqual([`${folder}/docs/minimatch.md`]);
    expect(crawl.removed).toEqual([`${folder}/docs/semver.md`]);
    expect(crawl.skipped_pages).toContainEqual({ url: `${site.base}/docs/semver`, reason: 'http_404' });
    // Only what changed came back with a body: every other page with validators answered 304.
    // (A page is asked for by the spelling found first: llms.txt names the guides' `.md` twins.)
    const page = (path: string) => path.replace(/\.md$/, '');
    const bodies = site.log.filter((l) => / 200$/.test(l) && l.startsWith('GET /docs/') && !l.startsWith('GET /docs/llms.txt')).map((l) => page(l.split(' ')[1]!)).sort();
    expect(bodies).toEqual(['/docs/', '/docs/minimatch', '/docs/moved-here', '/docs/new-guide']);
    expect(new Set(site.notModified.map(page))).toEqual(new Set(['/docs/a', '/docs/moved-here', '/docs/loop-1', '/docs/loop-2', '/docs/deep', ...DOC_PACKAGES.filter((p) => p !== 'minimatch' && p !== 'semver').map((p) => `/docs/${p}`)]));
    // Unchanged pages are the bytes they were; the changed one is new; the gone one is gone.
    expect(readFileSync(join(dir, folder, 'docs', 'picomatch.md'), 'utf8')).toBe(before);
    expect(readFileSync(join(dir, folder, 'docs', 'minimatch.md'), 'utf8')).toContain('rewritten');
    expect(filesUnder(dir)).not.toContain(`${folder}/docs/semver.md`);
    expect(filesUnder(dir)).toContain(`${folder}/docs/new-guide.md`);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('pages edited by hand: a 304 leaves the edit alone (no conflict); a new version upstream is a conflict that keeps the edit, offered again next time', async () => {
    const dir = join(root, 'references', id);
    const unchangedPage = join(dir, folder, 'docs', 'picomatch.md');
    const changedPage = join(dir, folder, 'docs', 'deep.md');
    const manifestRec = (path: string) =>
      readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.path === path);
    const fetchedDeep = manifestRec(`${folder}/docs/deep.md`);
    const fetchedPico = manifestRec(`${folder}/docs/picomatch.md`);
    appendFileSync(unchangedPage, '\nOperator note: use picomatch for globs in the build.\n');
    appendFileSync(changedPage, '\nOperator note: the deep page matters.\n');
    const editedUnchanged = readFileSync(unchangedPage, 'utf8');
    const editedChanged = readFileSync(changedPage, 'utf8');
    site.setPage('deep', '# Deep, revised\n\nOnly reached through the loop, now with more to say.\n');

    const dry = await cli(['refresh', id, '--dry-run', '--json'], { root, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json.topics[0]).toMatchObject({ changed: [`${folder}/docs/deep.md`], conflicts: [{ path: `${folder}/docs/deep.md`, upstream: 'changed' }] });

    for (const round of [1, 2]) {
      site.notModified.length = 0;
      const r = await cli(['refresh', id, '--json'], { root, env });
      expect(r.code, `round ${round}: ${r.stderr}`).toBe(0);
      const result = r.json.topics[0];
      // The page that answered 304 is unchanged upstream: not a conflict, not changed, and never rewritten.
      expect(site.notModified.map((path) => path.replace(/\.md$/, ''))).toContain('/docs/picomatch');
      expect(result.conflicts).toEqual([{ path: `${folder}/docs/deep.md`, upstream: 'changed' }]);
      expect(result.changed).toBe(0);
      // The crawl's own list says what changed upstream; `conflicts` says the edit was kept over it.
      expect(result.sources[0].crawl.changed).toEqual([`${folder}/docs/deep.md`]);
      expect(result.warnings.join('\n')).toContain(`${folder}/docs/deep.md: changed upstream and edited here; kept your version`);
      expect(result.warnings.join('\n')).not.toContain('picomatch');
      expect(readFileSync(unchangedPage, 'utf8')).toBe(editedUnchanged);
      expect(readFileSync(changedPage, 'utf8')).toBe(editedChanged);
      // The manifest still holds what was fetched (so the next refresh offers upstream's version again).
      expect(manifestRec(`${folder}/docs/deep.md`)).toMatchObject({ sha256: fetchedDeep.sha256, etag: fetchedDeep.etag });
      expect(manifestRec(`${folder}/docs/picomatch.md`)).toMatchObject({ sha256: fetchedPico.sha256, etag: fetchedPico.etag });
    }
  });
});
