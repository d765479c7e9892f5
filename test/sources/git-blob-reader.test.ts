import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobReader } from '../../src/lib/sources/git-blob-reader.js';
import { GitFailure } from '../../src/lib/sources/git-run.js';
import { git, tempDir, write } from '../helpers/git-repos.js';

let repo: string;
const oids: Record<string, string> = {};
const texts: Record<string, Buffer> = {
  small: Buffer.from('hello\n'),
  empty: Buffer.alloc(0),
  // Larger than a pipe read, so one answer arrives in several chunks.
  large: Buffer.from('0123456789abcdef\n'.repeat(40_000)),
  binary: Buffer.from([0, 10, 13, 10, 255, 0, 10]),
};

beforeAll(() => {
  repo = tempDir();
  git(repo, 'init', '-q');
  for (const [name, data] of Object.entries(texts)) {
    write(repo, name, data);
    oids[name] = git(repo, 'hash-object', '-w', name);
  }
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('BlobReader', () => {
  it('answers request after request from one process, byte for byte', async () => {
    const reader = new BlobReader(repo);
    try {
      const first = await reader.read([oids.small!, oids.large!]);
      expect(first.get(oids.small!)).toEqual(texts.small);
      // Compared with equals(): a deep equality of 680 KB byte by byte takes seconds.
      expect(first.get(oids.large!)?.equals(texts.large!)).toBe(true);
      const second = await reader.read([oids.binary!, oids.empty!, oids.small!]);
      expect(second.get(oids.binary!)).toEqual(texts.binary);
      expect(second.get(oids.empty!)).toEqual(Buffer.alloc(0));
      expect(second.get(oids.small!)).toEqual(texts.small);
      expect(await reader.read([])).toEqual(new Map());
    } finally {
      await reader.close();
    }
  });

  it('leaves out objects git reports missing, and can cut each answer to its first bytes', async () => {
    const reader = new BlobReader(repo);
    try {
      const absent = 'f'.repeat(40);
      const got = await reader.read([absent, oids.large!, oids.small!], 5);
      expect([...got.keys()].sort()).toEqual([oids.large!, oids.small!].sort());
      expect(got.get(oids.large!)).toEqual(texts.large!.subarray(0, 5));
      expect(got.get(oids.small!)).toEqual(texts.small!.subarray(0, 5));
    } finally {
      await reader.close();
    }
  });

  it('finds objects written after it started', async () => {
    const reader = new BlobReader(repo);
    try {
      await reader.read([oids.small!]);
      write(repo, 'later', 'written later\n');
      const later = git(repo, 'hash-object', '-w', 'later');
      expect((await reader.read([later])).get(later)?.toString()).toBe('written later\n');
    } finally {
      await reader.close();
    }
  });

  it('refuses a second request while one is open, and fails every request once git is gone', async () => {
    const reader = new BlobReader(repo);
    const open = reader.read([oids.large!]);
    await expect(reader.read([oids.small!])).rejects.toThrow(/one request at a time/);
    await open;
    await reader.close();
    await expect(reader.read([oids.small!])).rejects.toBeInstanceOf(GitFailure);
  });

  it('fails with GitFailure outside a repository', async () => {
    const dir = tempDir();
    const reader = new BlobReader(dir);
    try {
      const err = await reader.read([oids.small!]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitFailure);
      expect((err as GitFailure).stderr).toMatch(/not a git repository/);
    } finally {
      await reader.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
