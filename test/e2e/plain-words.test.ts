/**
 * Answers that do not read like failures when nothing failed (issue 30): a root whose model has
 * chunk vectors off by design, an index just rebuilt, and MCP text holding code fences.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fenceFor, renderSearch } from '../../src/lib/mcp/tools.js';
import { cli, tmpDir } from '../helpers/fixtures.js';
import { WIDGETRY, writeTopic } from '../helpers/index-topics.js';
import { freshRoot } from '../helpers/roots.js';

describe('a use-lite root (chunk vectors off by design)', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  const env = { TKOMA_REF_EMBEDDER: '' };

  beforeAll(async () => {
    const init = await cli(['init', '--embedder', 'use-lite', '--json'], { root, env });
    expect(init.code, init.stderr).toBe(0);
    await writeTopic(root, WIDGETRY);
  });
  afterAll(() => tmp.cleanup());

  it('index status after a rebuild names the embedder and says chunks are lexical by design', async () => {
    const rebuilt = await cli(['index', 'rebuild', '--json'], { root, env });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const status = await cli(['index', 'status', '--json'], { root, env });
    expect(status.json.embedder).toMatch(/^use-lite:/);
    expect(status.json.vector_work.chunk_vectors).toBe(false);
    const text = await cli(['index', 'status'], { root, env });
    expect(text.stdout).toContain('ranked lexically by design');
    expect(text.stdout).not.toMatch(/\(0%\)/);
  });

  it('a search says why chunks are lexical instead of "no vectors yet"', async () => {
    const r = await cli(['search', 'scrolling lists', '--topic', 'topic-widgetry', '--json', '--no-server'], { root, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.vector_search.reason).toContain('by design');
    expect(r.json.vector_search.reason).not.toContain('no vectors in this index yet');
  });
});

describe('an embedder named on the command line that cannot answer', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  afterAll(() => tmp.cleanup());

  it('warns, and the search still answers lexically', async () => {
    await freshRoot(root);
    await writeTopic(root, WIDGETRY);
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const env = { TKOMA_REF_EMBEDDER: '', TKOMA_REF_EMBED_URL: `http://127.0.0.1:${port}` };
    const r = await cli(['search', 'scrolling lists', '--embedder', 'ollama', '--json', '--no-server'], { root, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.results.length).toBeGreaterThan(0);
    expect(r.json.vector_search.warning).toMatch(/--embedder ollama: embedder ollama is unavailable: .*unreachable/);
    const text = await cli(['search', 'scrolling lists', '--embedder', 'ollama', '--no-server'], { root, env });
    expect(text.stderr).toContain('--embedder ollama');
  });
});

describe('MCP text output', () => {
  it('fences a snippet that holds fences with a longer fence', () => {
    expect(fenceFor('plain')).toBe('```');
    expect(fenceFor('```rust\nfn main() {}\n```')).toBe('````');
    const snippet = 'Example:\n````md\n```js\nx\n```\n````';
    const text = renderSearch({
      topic: null,
      topics_searched: ['topic-a'],
      results: [{ id: 'topic-a/README.md', start_line: 1, end_line: 6, role: 'docs', score: 1, file_status: 'active', is_stale: false, title: 'README', snippet }],
      vector_search: { available: true },
    } as never);
    const lines = text.split('\n');
    const open = lines.indexOf('`````');
    expect(open).toBeGreaterThan(0);
    expect(lines.slice(open + 1, open + 7).join('\n')).toBe(snippet);
    expect(lines[open + 7]).toBe('`````');
  });
});
