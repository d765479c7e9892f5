/** Small statistics and measuring helpers for the benchmarks. */

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Peak resident set size of this process so far, in MB (getrusage ru_maxrss). */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export const round = (x: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** "12.3 s" / "850 ms" for progress lines. */
export function human(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** Prints an aligned plain-text table to stdout (the scripts' own output). */
export function printTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  const cells = [header, ...rows].map((r) => r.map((c) => String(c)));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const [n, r] of cells.entries()) {
    console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}
