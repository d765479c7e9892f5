/**
 * `search --context` through the built binary on a real git repository: a docs hit in a small
 * trailing section widens to the whole example above it (issue 12's use_resource case), a method
 * hit widens to its class, N lines add N lines, and a bad value is refused with INVALID_INPUT.
 */
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cli, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

function useResourceDoc(): string {
  const lines = ['# use_resource', '', '`use_resource` runs an async closure and keeps its latest value.', '', '```rust', 'fn app() -> Element {'];
  lines.push('    let dogs = use_resource(move || async move { fetch_dogs(breed()).await });');
  for (let i = 0; i < 30; i++) lines.push(`    // step ${i}: render the pictures for the chosen kind of animal`);
  lines.push('    rsx! { "done" }', '}', '```', '');
  while (lines.length < 48) lines.push('Plain words about pictures and animals.');
  lines.push('## Restarting', '', 'The closure reruns whenever a signal it reads changes; call `restart()` to rerun it by hand.', '');
  lines.push('## Unrelated', '', 'Installing the toolchain is covered elsewhere.', 'Nothing here about closures.');
  return `${lines.join('\n')}\n`;
}

function cacheSource(): string {
  const lines = ['export class Cache {'];
  for (const m of ['get', 'put', 'evict']) {
    lines.push(`  ${m}(key: string): void {`);
    for (let i = 0; i < 25; i++) lines.push(m === 'evict' ? `    // eviction policy removes the oldest entry ${i}` : `    // ordinary ${m} bookkeeping line ${i}`);
    lines.push('  }', '');
  }
  lines.push('}', '', 'export function helper(): number {');
  for (let i = 0; i < 30; i++) lines.push(`  // helper work ${i}`);
  lines.push('  return 1;', '}');
  return `${lines.join('\n')}\n`;
}

interface Hit {
  path: string;
  start_line: number;
  end_line: number;
  snippet: string;
  snippet_start_line: number;
  snippet_end_line: number;
}

describe('search --context (real binary, real git repository)', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  const search = async (question: string, ...extra: string[]): Promise<Hit[]> => {
    const r = await cli(['search', question, '--topic', 'topic-dioxus', '--json', '--no-server', ...extra], { root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return r.json.results as Hit[];
  };

  beforeAll(async () => {
    await freshRoot(root);
    const up = makeRepo(join(tmp.path, 'up'), { 'docs/use_resource.md': useResourceDoc(), 'src/cache.ts': cacheSource() });
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Dioxus', '--git', up.url], { root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it('without --context, the hit is the matching section and its snippet names the lines shown', async () => {
    const [top] = await search('rerun closure restart');
    expect(top!.path).toBe('docs/use_resource.md');
    expect(top!.start_line).toBeGreaterThanOrEqual(49);
    expect(top!.snippet).toContain('restart()');
    expect(top!.snippet).not.toContain('fn app()');
    expect(top!.snippet_start_line).toBeGreaterThanOrEqual(top!.start_line);
    expect(top!.snippet_end_line).toBeLessThanOrEqual(top!.end_line);
  });

  it('--context section brings the whole example of the enclosing section in one hit', async () => {
    const hits = await search('rerun closure restart', '--context', 'section');
    const inDoc = hits.filter((h) => h.path === 'docs/use_resource.md');
    expect(inDoc).toHaveLength(1); // the intro hit folded into the widened one
    const [h] = inDoc;
    expect(h!.start_line).toBe(1);
    expect(h!.end_line).toBeGreaterThanOrEqual(52);
    expect(h!.snippet).toContain('fn app() -> Element {');
    expect(h!.snippet).toContain('restart()');
    expect(h!.snippet_start_line).toBe(1);
  });

  it('--context section widens a method hit to its class, not past it', async () => {
    const [plain] = await search('eviction policy oldest entry');
    const [wide] = await search('eviction policy oldest entry', '--context', 'section');
    expect(plain!.path).toBe('src/cache.ts');
    expect(plain!.start_line).toBeGreaterThan(50);
    expect(wide!.start_line).toBe(1);
    expect(wide!.snippet).toContain('export class Cache {');
    expect(wide!.snippet).toContain('get(key: string)');
    expect(wide!.snippet).not.toContain('helper work');
  });

  it('--context N adds N lines above and below; JSON input takes `context` too', async () => {
    const [plain] = await search('eviction policy oldest entry');
    const [wide] = await search('eviction policy oldest entry', '--context', '3');
    expect(wide!.start_line).toBe(plain!.start_line - 3);
    const r = await cli(['search', '--json', '--no-server', '--input', JSON.stringify({ question: 'eviction policy oldest entry', topic: 'topic-dioxus', context: 3 })], { root });
    expect(r.code).toBe(0);
    expect(r.json.results[0].start_line).toBe(wide!.start_line);
  });

  it('a bad --context is refused with INVALID_INPUT, exit 2, no stack trace', async () => {
    const r = await cli(['search', 'x', '--topic', 'topic-dioxus', '--json', '--no-server', '--context', 'lots'], { root });
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    expect(r.json.error.field).toBe('context');
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });
});
