import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { countByReason, DEFAULT_LIMITS, effectiveLimits, HARD_LIMITS, parseLimits, planCaps } from '../../src/lib/safety/limits.js';
import { approvalSummary, cappedText } from '../../src/lib/topics/summary.js';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TkomaError);
    return (err as TkomaError).code;
  }
  throw new Error('expected a TkomaError');
}

describe('limits', () => {
  it('has the documented defaults, and layers config then request', () => {
    expect(DEFAULT_LIMITS).toEqual({ max_files: 20_000, max_file_bytes: 1024 * 1024, max_topic_bytes: 512 * 1024 * 1024 });
    expect(effectiveLimits()).toEqual(DEFAULT_LIMITS);
    expect(effectiveLimits({ max_files: 10, max_file_bytes: 99 }, { max_files: 3 }, undefined)).toEqual({ max_files: 3, max_file_bytes: 99, max_topic_bytes: DEFAULT_LIMITS.max_topic_bytes });
  });

  it('accepts whole numbers (or digit strings) within the hard limits, and nothing else', () => {
    expect(parseLimits(undefined)).toBeUndefined();
    expect(parseLimits(null)).toBeUndefined();
    expect(parseLimits({ max_files: 5, max_file_bytes: '1024' })).toEqual({ max_files: 5, max_file_bytes: 1024 });
    for (const bad of [[], 'x', 3, { max_files: 0 }, { max_files: -1 }, { max_files: 1.5 }, { max_files: '1e3' }, { max_files: HARD_LIMITS.max_files + 1 }, { max_files: Number.NaN }, { max_files: Infinity }, { other: 1 }, { max_topic_bytes: true }]) {
      expect(codeOf(() => parseLimits(bad))).toBe('INVALID_INPUT');
    }
  });

  it('planCaps: size cap per file, then files, then bytes, in the given order', () => {
    const files = [
      { p: 'a', n: 10 },
      { p: 'b', n: 500 },
      { p: 'c', n: 20 },
      { p: 'd', n: 30 },
      { p: 'e', n: 1 },
    ];
    const byFiles = planCaps(files, (f) => f.n, { max_file_bytes: 100 }, { files: 2, bytes: Infinity });
    expect(byFiles.kept.map((f) => f.p)).toEqual(['a', 'c']);
    expect(byFiles.skipped.map((s) => [s.item.p, s.reason])).toEqual([
      ['b', 'too_large'],
      ['d', 'max_files'],
      ['e', 'max_files'],
    ]);
    const byBytes = planCaps(files, (f) => f.n, { max_file_bytes: 100 }, { files: 99, bytes: 35 });
    expect(byBytes.kept.map((f) => f.p)).toEqual(['a', 'c']);
    expect(countByReason(byBytes.skipped)).toEqual({ too_large: 1, max_topic_bytes: 2 });
    expect(byBytes.left).toEqual({ files: 97, bytes: 5 });
  });

  it('property: planCaps keeps within the caps and accounts for every file, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.nat(2000), { nil: null }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.nat(40),
        fc.nat(30_000),
        (sizes, maxFile, files, bytes) => {
          const items = sizes.map((n, i) => ({ i, n }));
          const plan = planCaps(items, (x) => x.n, { max_file_bytes: maxFile }, { files, bytes });
          expect(plan.kept.length).toBeLessThanOrEqual(files);
          expect(plan.kept.reduce((s, x) => s + (x.n ?? 0), 0)).toBeLessThanOrEqual(bytes);
          for (const x of plan.kept) expect(x.n ?? 0).toBeLessThanOrEqual(maxFile);
          const seen = [...plan.kept, ...plan.skipped.map((s) => s.item)].map((x) => x.i).sort((a, b) => a - b);
          expect(seen).toEqual(items.map((x) => x.i));
          // Kept files keep their relative order.
          expect(plan.kept.map((x) => x.i)).toEqual([...plan.kept.map((x) => x.i)].sort((a, b) => a - b));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('says in the approval summary what the caps would leave out', () => {
    expect(cappedText(undefined)).toBe('');
    expect(cappedText({ max_files: 1200, too_large: 3 })).toBe('caps skip 1,203 (max_files 1,200, too_large 3)');
    const line = approvalSummary([
      { type: 'git', display_name: 'o/r', file_count: 20_000, total_bytes: 4096, languages: [{ name: 'Rust' }], capped: { max_files: 1200 } },
      { type: 'web', display_name: 'https://x/', capped: { max_files: 1 } },
    ]);
    expect(line).toBe('o/r: 20,000 files, ~4 KB, Rust, caps skip 1,200 (max_files 1,200) + 1 web page on x (1 over the caps)');
  });
});
