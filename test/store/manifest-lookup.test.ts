import { describe, expect, it } from 'vitest';

import { ManifestLookup } from '../../src/lib/store/manifest-lookup.js';
import type { FileRecord } from '../../src/lib/store/topic-files.js';

const rec = (path: string, extra: Partial<FileRecord> = {}): FileRecord => ({
  path, source_url: 'file:///up', role: 'code', bytes: 1, sha256: 'x'.repeat(64), fetched_at: '2026-11-24T00:00:00Z', ...extra,
});

/** What a whole parse answers: every valid line, the last one for a path winning. */
function wholeParse(text: string): Map<string, FileRecord> {
  const m = new Map<string, FileRecord>();
  for (const line of text.split('\n')) {
    try {
      const r = JSON.parse(line) as FileRecord;
      if (typeof r?.path === 'string' && !r.path.includes('..')) m.set(r.path, r);
    } catch {
      // skipped like the manifest reader skips it
    }
  }
  return m;
}

describe('ManifestLookup', () => {
  const lines = [
    JSON.stringify(rec('a.ts')),
    JSON.stringify(rec('sub/a.ts', { source_url: 'https://host/a.ts' })),
    '{"path": "spaced.md", "source_url":"file:///up","role":"docs","bytes":2,"sha256":"y","fetched_at":"t"}',
    '{damaged line "a.ts"',
    JSON.stringify(rec('twice.md', { bytes: 1 })),
    JSON.stringify(rec('other.md', { source_url: '"twice.md"' })),
    JSON.stringify(rec('twice.md', { bytes: 2 })),
    '{"path":"\\u0065scaped.rs","source_url":"file:///up","role":"code","bytes":3,"sha256":"z","fetched_at":"t"}',
    JSON.stringify(rec('../outside.ts')),
    JSON.stringify(rec('z.md', { commit: 'a.ts' })),
    JSON.stringify(rec('ünï "quoted".md')),
  ];
  const text = lines.join('\n') + '\n';
  const paths = ['a.ts', 'sub/a.ts', 'spaced.md', 'twice.md', 'other.md', 'escaped.rs', '../outside.ts', 'ünï "quoted".md', 'missing.ts'];

  it('answers every path as a whole parse does', () => {
    const whole = wholeParse(text);
    for (const p of paths) expect(new ManifestLookup(text).get(p), p).toEqual(whole.get(p));
    const shared = new ManifestLookup(text);
    for (const p of [...paths, ...paths]) expect(shared.get(p), p).toEqual(whole.get(p));
  });

  it('keeps the last line for a path, and never takes a line that only mentions it', () => {
    const m = new ManifestLookup(text);
    expect(m.get('twice.md')?.bytes).toBe(2);
    expect(m.get('a.ts')?.path).toBe('a.ts');
    expect(m.get('escaped.rs')?.bytes).toBe(3);
    expect(m.get('../outside.ts')).toBeUndefined();
  });

  it('stays right past the lookups that switch it to a whole parse', () => {
    const many = Array.from({ length: 300 }, (_, i) => rec(`f${i}.ts`, { bytes: i }));
    const m = new ManifestLookup(many.map((r) => JSON.stringify(r)).join('\n'));
    for (let i = 299; i >= 0; i--) expect(m.get(`f${i}.ts`)?.bytes).toBe(i);
    expect(m.get('f300.ts')).toBeUndefined();
  });

  it('read from the end, skips a later damaged line or a later line that only mentions the path', () => {
    const text = [
      JSON.stringify(rec('kept.md', { bytes: 1 })),
      JSON.stringify(rec('kept.md', { bytes: 2 })),
      '{"path":"kept.md","bytes":3, damaged',
      JSON.stringify(rec('other.md', { commit: 'kept.md', source_url: '"kept.md"' })),
    ].join('\n');
    expect(new ManifestLookup(text).get('kept.md')?.bytes).toBe(2);
    expect(new ManifestLookup(text).get('kept.md')).toEqual(wholeParse(text).get('kept.md'));
    expect(new ManifestLookup(text).get('other.md')?.path).toBe('other.md');
  });

  it('answers nothing for an empty manifest', () => {
    expect(new ManifestLookup('').get('a.ts')).toBeUndefined();
  });

  it('reads the bytes of the file as the whole decoded text reads, bad UTF-8 included', () => {
    const bad = Buffer.from([0xc3, 0x28, 0xe2, 0x82]); // an invalid pair, then a cut-off character
    const bytes = Buffer.concat([
      Buffer.from(JSON.stringify(rec('first.md')) + '\n'),
      Buffer.from('{"path":"broken-'),
      bad,
      Buffer.from('.md","source_url":"file:///up","role":"docs","bytes":4,"sha256":"w","fetched_at":"t"}\n'),
      bad,
      Buffer.from('\n' + JSON.stringify(rec('after.md', { bytes: 5 })) + '\n'),
      Buffer.from(JSON.stringify(rec('ünï.md', { bytes: 6 }))),
    ]);
    const whole = wholeParse(bytes.toString('utf8'));
    const brokenPath = [...whole.keys()].find((p) => p.startsWith('broken-'))!;
    expect(brokenPath).toContain('\ufffd');
    for (const p of ['first.md', brokenPath, 'after.md', 'ünï.md', 'missing.md']) {
      expect(new ManifestLookup(bytes).get(p), p).toEqual(whole.get(p));
    }
  });
});
