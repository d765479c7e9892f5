/**
 * A large manifest is written in pieces and its roles read in pieces: the file must be the bytes
 * the whole text gives, and the roles what the whole read gives, damaged lines and multi-byte
 * paths across piece boundaries included.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { pathRecordsText } from '../../src/lib/store/path-records.js';
import { type FileRecord, readManifest, readManifestRoles, writeManifest } from '../../src/lib/store/topic-files.js';

const ROLES = ['docs', 'code', 'example', 'test'] as const;

function records(n: number): FileRecord[] {
  // Out of order, so the writer's sort shows; 2-, 3- and 4-byte characters in paths.
  return Array.from({ length: n }, (_, i) => ({
    path: `dir-${(i * 7919) % n}/Größe-東京-😀-${i}.md`,
    source_url: 'https://example.com/repo.git',
    role: ROLES[i % 4]!,
    bytes: i,
    sha256: (i % 16).toString(16).repeat(64),
    fetched_at: '2026-11-28T00:00:00.000Z',
    commit: 'a'.repeat(40),
  }));
}

describe('the manifest in pieces', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('writes the bytes of the whole text and reads back every role, past several pieces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkoma-manifest-'));
    dirs.push(dir);
    const recs = records(12_000);
    await writeManifest(dir, recs);
    const bytes = readFileSync(join(dir, '.tkoma-files.jsonl'));
    expect(bytes.length).toBeGreaterThan(3 * 2 ** 20); // more than one read piece
    expect(bytes.equals(Buffer.from(pathRecordsText(recs), 'utf8'))).toBe(true);

    // A damaged line and an unsafe path lose only themselves, as in the whole read.
    appendFileSync(join(dir, '.tkoma-files.jsonl'), '{"path": "broken\n{"path":"../escape.md","role":"docs"}\n');
    const whole = new Map((await readManifest(dir)).map((r) => [r.path, r.role]));
    const roles = await readManifestRoles(dir);
    expect(roles.size).toBe(12_000);
    expect(roles).toEqual(whole);

    // With a fallback, only the roles it would not give are kept; with it, every role is the same.
    const fallback = (p: string) => (Number(/-(\d+)\.md$/.exec(p)?.[1]) % 3 === 0 ? 'docs' : 'code');
    const kept = await readManifestRoles(dir, fallback);
    expect(kept.size).toBeGreaterThan(0);
    expect(kept.size).toBeLessThan(whole.size);
    for (const [path, role] of whole) expect(kept.get(path) ?? fallback(path)).toBe(role);
  });

  it('keeps the last line of a path, with a fallback too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkoma-manifest-'));
    dirs.push(dir);
    writeFileSync(join(dir, '.tkoma-files.jsonl'), '{"path":"a.md","role":"code"}\n{"path":"a.md","role":"docs"}\n{"path":"b.md","role":"docs"}\n{"path":"b.md","role":"test"}\n');
    const whole = await readManifestRoles(dir);
    expect([...whole]).toEqual([['a.md', 'docs'], ['b.md', 'test']]);
    const kept = await readManifestRoles(dir, () => 'docs');
    expect([...kept]).toEqual([['b.md', 'test']]);
  });

  it('reads a last line without its newline, and nothing from a missing manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkoma-manifest-'));
    dirs.push(dir);
    expect((await readManifestRoles(dir)).size).toBe(0);
    writeFileSync(join(dir, '.tkoma-files.jsonl'), '{"path":"a.md","role":"code"}\n{"path":"b.md","role":"test"}');
    expect([...(await readManifestRoles(dir))]).toEqual([['a.md', 'code'], ['b.md', 'test']]);
  });
});
