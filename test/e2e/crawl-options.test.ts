/**
 * How a crawl is asked for and bounded (issue 28), through the built binary: the root's hard cap
 * on pages (`[crawl] max_pages_cap` in tkoma-ref.toml) and the `--crawl` flags of `topic create`,
 * against the real documentation site of test/helpers/docs-site.ts on 127.0.0.1.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type DocsSite, docsSite } from '../helpers/docs-site.js';
import { cli, git, tmpDir } from '../helpers/fixtures.js';
import { call, connect } from '../helpers/mcp.js';
import { freshRoot as copiedRoot } from '../helpers/roots.js';

describe('crawl bounds: the hard cap in tkoma-ref.toml and the --crawl flags (CLI)', () => {
  const tmp = tmpDir('tkoma-crawl-opts-');
  let site: DocsSite;
  let n = 0;
  /** A fresh root allowed to fetch from 127.0.0.1 (one `init` per test run, copied), with `toml` appended to its tkoma-ref.toml. */
  const freshRoot = async (toml = ''): Promise<string> => {
    const root = join(tmp.path, `kb-${++n}`);
    await copiedRoot(root);
    if (toml) {
      appendFileSync(join(root, 'tkoma-ref.toml'), `\n${toml}\n`);
      git(root, 'commit', '-q', '-am', 'crawl cap');
    }
    return root;
  };
  const request = (crawl: unknown) => JSON.stringify({ title: 'Test docs', body: '# Test docs\n\nGuides.\n', topic_id: 'topic-test-docs', sources: [{ type: 'web', url: `${site.base}/docs/`, crawl }] });

  beforeAll(async () => {
    site = await docsSite();
  });
  afterAll(async () => {
    await site?.close();
    tmp.cleanup();
  });

  it('without a setting the cap is 1,000: more is INVALID_INPUT naming the field and the setting, before any request', async () => {
    const root = await freshRoot();
    site.log.length = 0;
    const r = await cli(['topic', 'create', '--json', '--input', request({ max_pages: 1001 })], { root });
    expect(r.code).not.toBe(0);
    expect(r.json.error).toMatchObject({ code: 'INVALID_INPUT', cap: 1000, setting: '[crawl] max_pages_cap' });
    expect(r.json.error.message).toBe('sources[0].crawl.max_pages is 1001, over the cap of 1000 (raise `[crawl] max_pages_cap` in tkoma-ref.toml)');
    expect(site.log).toEqual([]);
    const ok = await cli(['topic', 'create', '--json', '--input', request({ max_pages: 1000 })], { root });
    expect(ok.code, ok.stderr).toBe(4);
    expect(ok.json.sources[0].crawl.bound).toBe(`up to 1,000 pages under ${site.base}/docs/ (link depth 5)`);
  });

  it('a raised cap lets a bigger crawl be asked for', async () => {
    const root = await freshRoot('[crawl]\nmax_pages_cap = 1500');
    const r = await cli(['topic', 'create', '--json', '--input', request({ max_pages: 1200 })], { root });
    expect(r.code, r.stderr).toBe(4);
    expect(r.json.sources[0].crawl).toMatchObject({ max_pages: 1200, bound: `up to 1,200 pages under ${site.base}/docs/ (link depth 5)` });
    const over = await cli(['topic', 'create', '--json', '--input', request({ max_pages: 1501 })], { root });
    expect(over.json.error).toMatchObject({ code: 'INVALID_INPUT', cap: 1500 });
  });

  it('a lowered cap lowers the default too, and refuses --max-pages over it by the flag\'s name', async () => {
    const root = await freshRoot('[crawl]\nmax_pages_cap = 50');
    const r = await cli(['topic', 'create', '--json', '--input', request({})], { root });
    expect(r.code, r.stderr).toBe(4);
    expect(r.json.sources[0].crawl).toMatchObject({ max_pages: 50, bound: `up to 50 pages under ${site.base}/docs/ (link depth 5)` });
    const flag = await cli(['topic', 'create', '--json', '--title', 'Test docs', '--web', `${site.base}/docs/`, '--crawl', '--max-pages', '60'], { root });
    expect(flag.code).not.toBe(0);
    expect(flag.json.error).toMatchObject({ code: 'INVALID_INPUT', field: '--max-pages', cap: 50, setting: '[crawl] max_pages_cap' });
    expect(flag.json.error.message).toBe('--max-pages is 60, over the cap of 50 (raise `[crawl] max_pages_cap` in tkoma-ref.toml)');
  });

  it('reference_topic_create over MCP holds to the root\'s cap', async () => {
    const root = await freshRoot('[crawl]\nmax_pages_cap = 50');
    const c = await connect(root);
    try {
      const over = await call(c, 'reference_topic_create', JSON.parse(request({ max_pages: 51 })));
      expect(over.isError).toBe(true);
      expect(over.data.error).toMatchObject({ code: 'INVALID_INPUT', cap: 50, setting: '[crawl] max_pages_cap' });
      expect(over.text).toContain('sources[0].crawl.max_pages is 51, over the cap of 50 (raise `[crawl] max_pages_cap` in tkoma-ref.toml)');
      const within = await call(c, 'reference_topic_create', JSON.parse(request({})));
      expect(within.isError, within.text).toBe(false);
      expect(within.data.sources[0].crawl).toMatchObject({ max_pages: 50 });
    } finally {
      await c.close();
    }
  });

  it('a malformed cap points at tkoma-ref.toml and its line', async () => {
    const root = await freshRoot('[crawl]\nmax_pages_cap = 0');
    const r = await cli(['topic', 'create', '--json', '--input', request({})], { root });
    expect(r.code).not.toBe(0);
    expect(r.json.error.code).toBe('MALFORMED_TOPIC');
    expect(r.json.error.message).toMatch(/^tkoma-ref\.toml:\d+: \[crawl\] max_pages_cap must be a whole number from 1 to 100000 \(got 0\)$/);
    const line = readFileSync(join(root, 'tkoma-ref.toml'), 'utf8').split('\n').findIndex((l) => l.trim() === '[crawl]') + 1;
    expect(r.json.error.line).toBe(line);
  });

  it('the crawl flags without --crawl, or --crawl without --web, are refused', async () => {
    const root = await freshRoot();
    const bound = await cli(['topic', 'create', '--json', '--title', 'Test docs', '--web', `${site.base}/docs/`, '--max-depth', '2'], { root });
    expect(bound.json.error).toMatchObject({ code: 'INVALID_INPUT', field: '--max-depth', message: '--max-depth applies to a crawl: add --crawl' });
    const noWeb = await cli(['topic', 'create', '--json', '--title', 'Test docs', '--npm', 'zod', '--crawl'], { root });
    expect(noWeb.json.error).toMatchObject({ code: 'INVALID_INPUT', field: '--crawl' });
    const scope = await cli(['topic', 'create', '--json', '--title', 'Test docs', '--web', `${site.base}/docs/`, '--crawl', '--crawl-scope', 'site'], { root });
    expect(scope.code).not.toBe(0);
    expect(scope.stdout + scope.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('--crawl --dry-run lists the pages discovery found, requests no page and writes nothing', async () => {
    const root = await freshRoot();
    const head = git(root, 'rev-parse', 'HEAD');
    site.log.length = 0;
    const r = await cli(['topic', 'create', '--json', '--title', 'Test docs', '--web', `${site.base}/docs/`, '--crawl', '--dry-run'], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'dry_run', sources: [{ crawl: { max_pages: 200, bound: `up to 200 pages under ${site.base}/docs/ (link depth 5)` } }] });
    expect(r.json.files.length).toBeGreaterThan(0);
    expect(r.json.files.map((f: { path: string }) => f.path)).toContain(`127.0.0.1-${new URL(site.base).port}/docs/minimatch.md`);
    expect(site.log.filter((l) => l.startsWith('GET /docs') && !l.startsWith('GET /docs/llms.txt '))).toEqual([]);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('--crawl with its bounds: phase 1 shows them, --yes crawls within them and records them in topic.md', async () => {
    const root = await freshRoot();
    const args = [
      'topic', 'create', '--json', '--title', 'Test docs', '--topic-id', 'topic-flag-docs', '--web', `${site.base}/docs/`,
      '--crawl', '--max-pages', '4', '--max-depth', '2', '--crawl-scope', 'prefix', '--crawl-exclude', '/docs/slow', '--crawl-exclude', '/docs/loop-*',
    ];
    const p1 = await cli(args, { root });
    expect(p1.code, p1.stderr).toBe(4);
    expect(p1.json.sources[0].crawl).toMatchObject({ scope: 'prefix', max_pages: 4, max_depth: 2, exclude: ['/docs/slow', '/docs/loop-*'], bound: `up to 4 pages under ${site.base}/docs/ (link depth 2)` });
    site.log.length = 0;
    const r = await cli([...args, '--yes'], { root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.sources[0].crawl.pages).toBe(4);
    expect(r.json.file_count).toBe(4);
    expect(site.log.some((l) => l.startsWith('GET /docs/loop-') || l.startsWith('GET /docs/slow'))).toBe(false);
    const topic = readFileSync(join(root, 'references', 'topic-flag-docs', 'topic.md'), 'utf8');
    expect(topic).toContain('crawl_scope = "prefix"\ncrawl_max_pages = 4\ncrawl_max_depth = 2\ncrawl_exclude = ["/docs/slow", "/docs/loop-*"]\n');

    // The operator lowers the cap below what the topic asks for: refresh asks for no page and keeps the files.
    appendFileSync(join(root, 'tkoma-ref.toml'), '\n[crawl]\nmax_pages_cap = 3\n');
    git(root, 'commit', '-q', '-am', 'lower the crawl cap');
    site.log.length = 0;
    const refreshed = await cli(['refresh', 'topic-flag-docs', '--json'], { root });
    // Its only source refused by the root's own setting: the policy's code (exit 14), not "unreachable".
    expect(refreshed.code).toBe(14);
    expect(refreshed.json.error.code).toBe('NOT_ALLOWED');
    expect(refreshed.json.error.message).toContain('crawl_max_pages = 4 in topic.md is over the cap of 3 (`[crawl] max_pages_cap` in tkoma-ref.toml)');
    expect(site.log).toEqual([]);
    expect(readFileSync(join(root, 'references', 'topic-flag-docs', 'topic.md'), 'utf8')).toBe(topic);
  });
});
