/** The approval summary's words: counts, sizes, caps. */
import { describe, expect, it } from 'vitest';

import { approvalSummary, cappedText, countOf, formatBytes, formatCount, mergeCounts } from '../../src/lib/topics/summary.js';

describe('summary', () => {
  it('counts and sizes read like a person wrote them', () => {
    expect(countOf(1, 'file')).toBe('1 file');
    expect(countOf(1413, 'file')).toBe('1,413 files');
    expect(formatBytes(340)).toBe('340 bytes');
    expect(formatBytes(12 * 1024)).toBe('~12 KB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('~1.5 MB');
  });

  it('caps: nothing when nothing is left out, else the total and each reason', () => {
    expect(cappedText(undefined)).toBe('');
    expect(cappedText({ max_files: 0 })).toBe('');
    expect(cappedText({ max_files: 200, too_large: 47 })).toBe('caps skip 247 (max_files 200, too_large 47)');
    expect(mergeCounts([{ a: 1 }, undefined, { a: 2, b: 1 }])).toEqual({ a: 3, b: 1 });
  });

  it('one line for git and web sources together', () => {
    const line = approvalSummary([
      { type: 'git', display_name: 'https://git.example.com/acme/gears', file_count: 1247, total_bytes: 98 * 1024 * 1024, languages: [{ name: 'Rust' }] },
      { type: 'web', display_name: 'https://example.com/', host: 'example.com' },
    ] as Parameters<typeof approvalSummary>[0]);
    expect(line).toBe('https://git.example.com/acme/gears: 1,247 files, ~98 MB, Rust + 1 web page on example.com');
  });

  it('names the hosts web pages come from, not only their count', () => {
    const pages = ['https://a.example/x', 'https://a.example/y', 'http://127.0.0.1:8080/z'].map((u) => ({ type: 'web' as const, display_name: u }));
    expect(approvalSummary(pages)).toBe('3 web pages on a.example, 127.0.0.1:8080');
    const many = ['a', 'b', 'c', 'd', 'e'].map((h) => ({ type: 'web' as const, display_name: `https://${h}.example/` }));
    expect(approvalSummary(many)).toBe('5 web pages on a.example, b.example, c.example and 2 more hosts');
  });
});

describe('formatCount', () => {
  it('reads exactly as toLocaleString("en-US"), which it skips for whole numbers', () => {
    const samples = [0, -0, 1, 9, 999, 1000, 1001, 12345, 999999, 1000000, -1234567, 2 ** 53 - 1, 2 ** 53, 1.5, 1234.5678, NaN, Infinity];
    for (let n = 1; n < 1e16; n = n * 7 + 3) samples.push(n);
    for (const n of samples) expect(formatCount(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});
