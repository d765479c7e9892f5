/**
 * Issue 9, item 4: refresh builds the new folder beside the live one and swaps them; operators
 * write to the live folder without our lock. Whatever they write while refresh runs (new files,
 * edits, topic.md) is carried over; a file both they and upstream changed keeps their version and
 * is reported as a conflict. The window is made deterministic with TKOMA_REF_HOLD_AT/UNTIL, and a
 * real writer process keeps writing files every few ms through a refresh of a few thousand files.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, expectClean, mustRun, start } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

const FILES = 3000;

/** Resolves once `probe` holds, looking every 20 ms: a progress condition, not a clock. */
async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((res) => setTimeout(res, 20));
}

describe('refresh keeps what the operator writes into the topic while it runs', () => {
  const tmp = tmpDir('tkoma-refresh-edits-');
  const root = join(tmp.path, 'kb');
  /**
   * Two topics with the same layout: `small` (10 files) for the held windows, whose timing the
   * hold makes deterministic, and `big` (FILES files) for the writer that races a long refresh.
   */
  const topics: Record<'small' | 'big', { dir: string; upstream: ReturnType<typeof makeRepo>; round: number }> = {} as never;

  beforeAll(async () => {
    await freshRoot(root);
    for (const [id, count] of [['small', 10], ['big', FILES]] as const) {
      const files: Record<string, string> = { 'README.md': '# Big\n\nBaseline.\n' };
      for (let i = 0; i < count; i++) files[`docs/f-${String(i).padStart(4, '0')}.md`] = `# File ${i}\n\nOriginal text ${i}.\n`;
      const upstream = makeRepo(join(tmp.path, `up-${id}`), files);
      await mustRun(createArgs(id, upstream.url), root);
      topics[id] = { dir: join(root, 'references', id), upstream, round: 0 };
    }
  });
  afterAll(() => tmp.cleanup());

  /** An upstream change: README and f-0001 change, a new file appears, f-0009 goes (the first time). */
  function upstreamMoves(id: 'small' | 'big'): number {
    const t = topics[id];
    const round = ++t.round;
    t.upstream.commit(
      { 'README.md': `# Big\n\nRevision ${round}.\n`, 'docs/f-0001.md': `# File 1\n\nUpstream revision ${round}.\n`, [`docs/new-${round}.md`]: `# New ${round}\n` },
      round === 1 ? ['docs/f-0009.md'] : [],
    );
    return round;
  }

  /** Starts `refresh <id>` held at `point`; resolves once it is held, with a release function. */
  async function heldRefresh(id: 'small' | 'big', point: string) {
    const gate = join(tmp.path, `release-${id}-${point.replace(':', '-')}-${topics[id].round}`);
    const run = start(['refresh', id, '--json'], { root, env: { TKOMA_REF_HOLD_AT: point, TKOMA_REF_HOLD_UNTIL: gate } });
    await run.waitForStderr(new RegExp(`held at ${point}`));
    return { done: run.done, release: () => writeFileSync(gate, '') };
  }

  it('edits made right before the swap: carried over, conflicts kept and reported', async () => {
    const { dir } = topics.small;
    const round = upstreamMoves('small');
    // A hand edit made before the refresh to a file upstream changes: a conflict too.
    writeFileSync(join(dir, 'README.md'), '# Big\n\nMy own readme.\n');
    const held = await heldRefresh('small', 'refresh:built');

    mkdirSync(join(dir, 'notes'), { recursive: true });
    writeFileSync(join(dir, 'notes/mine.md'), 'operator note\n'); // new, untracked
    writeFileSync(join(dir, 'docs/f-0002.md.tmp'), 'edited by rename\n'); // an editor's save: temp + rename
    renameSync(join(dir, 'docs/f-0002.md.tmp'), join(dir, 'docs/f-0002.md'));
    writeFileSync(join(dir, 'docs/f-0003.md'), 'edited in place\n');
    writeFileSync(join(dir, 'docs/f-0001.md'), 'edited here, changed upstream\n'); // conflict
    rmSync(join(dir, 'docs/f-0004.md')); // a deletion by hand stays a deletion
    const topicMd = readFileSync(join(dir, 'topic.md'), 'utf8');
    writeFileSync(join(dir, 'topic.md'), `${topicMd.trimEnd()}\n\nOperator line written during the refresh.\n`);
    held.release();

    const r = await held.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'notes/mine.md'), 'utf8')).toBe('operator note\n');
    expect(readFileSync(join(dir, 'docs/f-0002.md'), 'utf8')).toBe('edited by rename\n');
    expect(readFileSync(join(dir, 'docs/f-0003.md'), 'utf8')).toBe('edited in place\n');
    expect(readFileSync(join(dir, 'docs/f-0001.md'), 'utf8')).toBe('edited here, changed upstream\n');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# Big\n\nMy own readme.\n');
    expect(existsSync(join(dir, 'docs/f-0004.md'))).toBe(false);
    const t = r.json.topics[0];
    expect(t.conflicts.map((c: { path: string }) => c.path).sort()).toEqual(['README.md', 'docs/f-0001.md']);
    expect(t.warnings.join('\n')).toMatch(/docs\/f-0001\.md: changed upstream and edited here/);
    // Upstream's own changes landed where nobody edited.
    expect(readFileSync(join(dir, `docs/new-${round}.md`), 'utf8')).toBe(`# New ${round}\n`);
    expect(existsSync(join(dir, 'docs/f-0009.md'))).toBe(false);
    // topic.md: the operator's line, and refresh's fields applied on top.
    const after = readFileSync(join(dir, 'topic.md'), 'utf8');
    expect(after).toContain('Operator line written during the refresh.');
    expect(after).toContain(`docs/new-${round}.md`);
    // The manifest still describes what upstream last gave for the conflicting file: the next refresh offers it again.
    const rec = readFileSync(join(dir, '.tkoma-files.jsonl'), 'utf8').split('\n').find((l) => l.includes('"docs/f-0001.md"'))!;
    expect(rec).toBeTruthy();
    expectClean(root); // everything, the operator's files included, is in the refresh's commit
  });

  it('the folder re-created and written to between the two renames, and late writes into the old folder, survive', async () => {
    const { dir } = topics.small;
    const round = upstreamMoves('small');
    const held = await heldRefresh('small', 'refresh:aside');
    // The old folder is aside now; the topic path is absent. A writer that re-creates it:
    expect(existsSync(dir)).toBe(false);
    mkdirSync(join(dir, 'late'), { recursive: true });
    writeFileSync(join(dir, 'late/recreated.md'), 'written while the folder was absent\n');
    // A process whose working directory was the topic folder writes into the old one:
    const staging = join(root, '.tkoma', 'staging');
    const aside = readdirSync(staging).find((n) => n.startsWith('old-small.'))!;
    writeFileSync(join(staging, aside, 'cwd-writer.md'), 'written into the old folder\n');
    held.release();
    const r = await held.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'late/recreated.md'), 'utf8')).toBe('written while the folder was absent\n');
    expect(readFileSync(join(dir, 'cwd-writer.md'), 'utf8')).toBe('written into the old folder\n');
    expect(existsSync(join(dir, `docs/new-${round}.md`))).toBe(true);
    expectClean(root);
  });

  it(`a writer process adding a file every few ms through a ${FILES}-file refresh loses nothing`, async () => {
    const { dir } = topics.big;
    const round = upstreamMoves('big');
    // The writer retries a write that met the folder absent (the instant between the two renames)
    // and prints each file it wrote; it stops on SIGTERM.
    const script = `
      const fs = require('node:fs'); const path = require('node:path');
      const dir = process.argv[1]; let n = 0; let stop = false;
      process.on('SIGTERM', () => { stop = true; });
      const tick = () => {
        if (stop) return process.exit(0);
        const name = 'w-' + String(n).padStart(5, '0') + '.md';
        try { fs.writeFileSync(path.join(dir, name), 'writer ' + n + '\\n'); process.stdout.write(name + '\\n'); n++; }
        catch (e) { if (e.code !== 'ENOENT') throw e; }
        setTimeout(tick, 3);
      };
      tick();`;
    const writer = spawn(process.execPath, ['-e', script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let written = '';
    writer.stdout!.on('data', (d) => (written += d));
    const exited = new Promise<number | null>((res) => writer.on('close', (c) => res(c)));

    const count = () => written.split('\n').length - 1;
    const held = await heldRefresh('big', 'refresh:built');
    // Writes pile up in the window before the swap (at least 100 in all, 20 of them while held)...
    const atHold = count();
    await until(() => count() >= Math.max(100, atHold + 20));
    held.release();
    const r = await held.done;
    // ...and go on after it, into the swapped-in folder.
    const atEnd = count();
    await until(() => count() >= atEnd + 20);
    writer.kill('SIGTERM');
    expect(await exited).toBe(0);

    expect(r.code, r.stdout + r.stderr).toBe(0);
    const names = written.trim().split('\n');
    expect(names.length).toBeGreaterThan(100);
    const lost = names.filter((name) => !existsSync(join(dir, name)) || readFileSync(join(dir, name), 'utf8') !== `writer ${Number(name.slice(2, 7))}\n`);
    expect(lost).toEqual([]);
    expect(existsSync(join(dir, `docs/new-${round}.md`))).toBe(true);
  });
});
