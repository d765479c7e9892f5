/**
 * The derived index through the built binary: status, hand edits picked up by the next command,
 * rebuild answering exactly as before, and a `watch` process applying an edit by itself.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, cli, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { freshRoot } from '../helpers/roots.js';

describe('index maintenance through the CLI', () => {
  const tmp = tmpDir();
  const root = join(tmp.path, 'kb');
  const dir = join(root, 'references', 'topic-gears');

  beforeAll(async () => {
    await freshRoot(root);
    const repo = makeRepo(join(tmp.path, 'up'), {
      'README.md': '# Gears\n\nGears mesh with other gears.\n\n## Ratios\n\nThe gear ratio is teeth over teeth.\n',
      'docs/lubrication.md': '# Lubrication\n\nUse grease on the teeth every hundred hours.\n',
      'src/gear.ts': 'export function ratio(a: number, b: number): number {\n  return a / b;\n}\n',
    });
    const r = await cli(['topic', 'create', '--yes', '--json', '--title', 'Gears', '--git', repo.url], { root });
    expect(r.code).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it('index status reports files, chunks and no pending work', async () => {
    const r = await cli(['index', 'status', '--json'], { root });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ topics: 1, files: 3, pending: { changed: 0, added: 0, removed: 0 } });
    expect(r.json.chunks).toBeGreaterThanOrEqual(3);
  });

  it('a hand edit shows as pending, then the next search applies it', async () => {
    writeFileSync(join(dir, 'docs/assembly.md'), '# Assembly\n\nPress the sprocket onto the axle.\n');
    appendFileSync(join(dir, 'docs/lubrication.md'), '\nNever use molasses.\n');
    rmSync(join(dir, 'src/gear.ts'));
    const status = await cli(['index', 'status', '--json'], { root });
    expect(status.json.pending).toEqual({ changed: 1, added: 1, removed: 1 });
    const s = await cli(['search', 'sprocket axle', '--topic', 'topic-gears', '--json'], { root });
    expect(s.json.results[0].path).toBe('docs/assembly.md');
    const m = await cli(['search', 'molasses', '--topic', 'topic-gears', '--json'], { root });
    expect(m.json.results[0].path).toBe('docs/lubrication.md');
    const gone = await cli(['search', 'ratio', '--topic', 'topic-gears', '--json'], { root });
    expect(gone.json.results.map((h: { path: string }) => h.path)).not.toContain('src/gear.ts');
    const after = await cli(['index', 'status', '--json'], { root });
    expect(after.json.pending).toEqual({ changed: 0, added: 0, removed: 0 });
  });

  it('rebuild after deleting .tkoma answers exactly as before', async () => {
    const queries = ['gear teeth', 'grease', 'sprocket', 'ratio of gears'];
    const before = await Promise.all(queries.map((q) => cli(['search', q, '--all', '--json'], { root })));
    // The hand edits above are the operator's to commit; rebuilding must not touch tracked files.
    const statusBefore = git(root, 'status', '--porcelain');
    rmSync(join(root, '.tkoma'), { recursive: true, force: true });
    const rebuilt = await cli(['index', 'rebuild', '--json'], { root });
    expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
    for (let i = 0; i < queries.length; i++) {
      const again = await cli(['search', queries[i], '--all', '--json'], { root });
      expect(again.json).toEqual(before[i].json);
    }
    expect(git(root, 'status', '--porcelain')).toBe(statusBefore);
  });

  it('watch applies an edit on its own, then stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'watch', '--json', '--root', root], { env: { ...process.env, TKOMA_REF_EMBEDDER: 'none' } });
    const events: { type?: string }[] = [];
    const lines = createInterface({ input: child.stdout });
    const waitFor = (pred: (e: { type?: string; [k: string]: unknown }) => boolean): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (events.some(pred)) resolve();
          else lines.once('line', check);
        };
        check();
      });
    lines.on('line', (l) => events.push(JSON.parse(l)));
    await waitFor((e) => e.type === 'ready');
    writeFileSync(join(dir, 'docs/welding.md'), '# Welding\n\nTack weld the flange before the bead.\n');
    await waitFor((e) => e.type === 'sync');
    const s = await cli(['search', 'flange bead', '--topic', 'topic-gears', '--json'], { root });
    expect(s.json.results[0].path).toBe('docs/welding.md');
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
