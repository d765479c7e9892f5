/** The approval summary's words: counts, sizes, caps. */
import { describe, expect, it } from 'vitest';

import { approvalSummary, cappedText, countOf, formatBytes, mergeCounts } from '../../src/lib/topics/summary.js';

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
      { type: 'git', display_name: 'acme/gears', file_count: 1247, total_bytes: 98 * 1024 * 1024, languages: [{ name: 'Rust' }] },
      { type: 'web', display_name: 'https://example.com/' },
    ] as Parameters<typeof approvalSummary>[0]);
    expect(line).toBe('acme/gears: 1,247 files, ~98 MB, Rust + 1 web page');
  });
});
