/**
 * The machine fails, not the tool: a read-only root, a full disk, a git that refuses to commit.
 * Each has its own error code and exit status (README's error table) with the underlying message,
 * never INTERNAL; nothing of the operator's is lost; and a read-only root still answers readers.
 *
 * We run as root, so `chmod -R a-w` would not stop anything: the read-only root is a real
 * read-only bind mount, the full disk a real 4 MiB tmpfs, each made inside a private mount
 * namespace (`unshare -m`) that disappears with the command. It fails, saying so, where mounts are not allowed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BIN, git, makeRepo, tmpDir } from '../helpers/fixtures.js';
import { createArgs, mustRun, snapshot } from '../helpers/crash.js';
import { freshRoot } from '../helpers/roots.js';

function canMount(dir: string): boolean {
  const r = spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && mount -t tmpfs -o size=64k tmpfs "$0"', dir]);
  return r.status === 0;
}

interface Ran {
  code: number;
  json: any;
  out: string;
}

/** Runs the binary inside a private mount namespace where `root` is a read-only bind mount. */
function readOnly(root: string, args: string[]): Ran {
  const r = spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && shift && exec "$@"', root, '-', process.execPath, BIN, ...args, '--root', root], {
    env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, json, out: r.stdout + r.stderr };
}

describe('environment failures', () => {
  const tmp = tmpDir('tkoma-crash-env-');
  const root = join(tmp.path, 'kb');
  let allowed = false;
  afterAll(() => tmp.cleanup());

  beforeAll(async () => {
    mkdirSync(join(tmp.path, 'probe'));
    allowed = canMount(join(tmp.path, 'probe'));
    const up = makeRepo(join(tmp.path, 'up'), { 'README.md': '# Target\n\nThe marmoset sleeps.\n', 'docs/guide.md': '# Guide\n\nStable.\n' });
    await freshRoot(root);
    await mustRun(createArgs('target', up.url), root);
    await mustRun(['search', 'marmoset', '--json'], root); // the index is up to date: nothing pending
  });

  it('a read-only root answers search, get and topic list; writers get READ_ONLY (exit 9) and nothing changes', () => {
    expect(allowed, 'this test needs a private mount namespace (`unshare -m`, as root)').toBe(true);
    const before = snapshot(root);
    const search = readOnly(root, ['search', 'marmoset', '--json']);
    expect(search.code, search.out).toBe(0);
    expect(search.json.results.map((h: { path: string }) => h.path)).toContain('README.md');
    const all = readOnly(root, ['search', 'marmoset', '--all', '--json']);
    expect(all.code, all.out).toBe(0);
    const list = readOnly(root, ['topic', 'list', '--json']);
    expect(list.code, list.out).toBe(0);
    const get = readOnly(root, ['get', '--topic', 'target', '--path', 'README.md', '--json']);
    expect(get.code, get.out).toBe(0);
    expect(get.out).toContain('marmoset');

    const update = readOnly(root, ['topic', 'update', 'target', '--title', 'Nope', '--json']);
    expect(update.json?.error?.code, update.out).toBe('READ_ONLY');
    expect(update.code).toBe(9);
    expect(update.json.error.message).toMatch(/read-only|EROFS/i);
    const create = readOnly(root, createArgs('other', 'file:///nowhere'));
    expect(create.json?.error?.code, create.out).toBe('READ_ONLY');
    expect(snapshot(root)).toEqual(before);
  });

  it("a full disk mid-update gives DISK_FULL (exit 10) and the operator's work back byte for byte", () => {
    expect(allowed, 'this test needs a private mount namespace (`unshare -m`, as root)').toBe(true);
    const target = join(root, 'references', 'target');
    appendFileSync(join(target, 'topic.md'), '\nOperator note, not committed.\n');
    writeFileSync(join(target, 'docs', 'guide.md'), '# Guide\n\nHand edit.\n');
    writeFileSync(join(target, 'mine.md'), 'my own file\n');
    const before = snapshot(join(root, 'references'));
    const status = git(root, 'status', '--porcelain');
    const body = Array.from({ length: 1600 }, (_, i) => `Line ${i} of a long body that the full disk will not take.`).join('\n');
    writeFileSync(join(tmp.path, 'body.json'), JSON.stringify({ topic_id: 'target', body }));
    const mnt = join(tmp.path, 'mnt');
    const after = join(tmp.path, 'after');
    mkdirSync(mnt);
    // Copy the root onto a 4 MiB tmpfs, fill it to within 32 KiB, update, free the space, let the next command recover, copy the result out.
    const script = [
      'set -u',
      'mount -t tmpfs -o size=4m tmpfs "$MNT"',
      'cp -a "$ROOT" "$MNT/kb"',
      'dd if=/dev/zero of="$MNT/fill" bs=4096 2>/dev/null || true',
      'truncate -s -32768 "$MNT/fill"',
      'node "$BIN" topic update --input "$(cat "$BODY")" --json --root "$MNT/kb" > "$OUT/update.json"; echo $? > "$OUT/update.code"',
      'rm -f "$MNT/fill"',
      'node "$BIN" topic list --json --root "$MNT/kb" > /dev/null',
      'cp -a "$MNT/kb" "$AFTER"',
    ].join('\n');
    execFileSync('unshare', ['-m', 'sh', '-c', script], {
      env: { ...process.env, TKOMA_REF_EMBEDDER: 'none', MNT: mnt, ROOT: root, BIN, BODY: join(tmp.path, 'body.json'), OUT: tmp.path, AFTER: after },
    });
    const code = Number(execFileSync('cat', [join(tmp.path, 'update.code')], { encoding: 'utf8' }));
    const out = execFileSync('cat', [join(tmp.path, 'update.json')], { encoding: 'utf8' });
    expect(JSON.parse(out).error.code, out).toBe('DISK_FULL');
    expect(code).toBe(10);
    expect(snapshot(join(after, 'references'))).toEqual(before);
    expect(git(after, 'status', '--porcelain')).toBe(status);
    expect(git(after, 'rev-parse', 'HEAD')).toBe(git(root, 'rev-parse', 'HEAD'));
  });
});
