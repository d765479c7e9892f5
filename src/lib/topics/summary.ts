/** Human summaries for approval prompts and commit messages. Pure. */

export interface SourceSummaryInput {
  type: 'git' | 'web' | 'npm';
  display_name: string;
  /** Web pages: the host they are requested from. */
  host?: string;
  file_count?: number;
  total_bytes?: number | null;
  languages?: { name: string }[];
  filtered?: boolean;
  /** A crawl: its bound, as phase 1 shows it. */
  crawl?: { bound: string; found: number };
  reachable?: boolean;
  /** Files the topic's caps would leave out of this source, by reason. */
  capped?: Record<string, number>;
}

export function formatCount(n: number): string {
  // The same text as toLocaleString('en-US') for whole numbers, without its first call's cost:
  // loading ICU's number formatting took 35-70 ms of every create and delete here.
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  return n.toLocaleString('en-US');
}

/** "1 file", "1,413 files". */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** "~98 MB", "~12 KB", "340 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `~${v >= 10 ? Math.round(v) : Math.round(v * 10) / 10} ${units[u]}`;
}

/**
 * `https://github.com/DioxusLabs/dioxus: 1,247 files, ~98 MB, Rust + 1 web page on dioxuslabs.com`,
 * or with paths `341 files, ~12 MB (filtered from https://github.com/DioxusLabs/dioxus)`; a local
 * repository is named `local repository /path`.
 */
export function approvalSummary(sources: SourceSummaryInput[]): string {
  const parts: string[] = [];
  for (const s of sources.filter((x) => x.type === 'npm')) {
    // `npm zod@3.23.8: 66 files, ~600 KB (as published)`: the registry's own counts, before the filters.
    const size = typeof s.total_bytes === 'number' ? `, ${formatBytes(s.total_bytes)}` : '';
    parts.push(`npm ${s.display_name}: ${s.file_count === undefined ? 'file count unknown' : countOf(s.file_count, 'file')}${size} (as published)`);
  }
  for (const s of sources.filter((x) => x.type === 'git')) {
    const bits = [countOf(s.file_count ?? 0, 'file')];
    if (typeof s.total_bytes === 'number') bits.push(formatBytes(s.total_bytes));
    else bits.push('size unknown');
    const langs = (s.languages ?? []).slice(0, 2).map((l) => l.name);
    if (langs.length) bits.push(langs.join(', '));
    const caps = cappedText(s.capped);
    if (caps) bits.push(caps);
    parts.push(s.filtered ? `${bits.join(', ')} (filtered from ${s.display_name})` : `${s.display_name}: ${bits.join(', ')}`);
  }
  for (const c of sources.filter((x) => x.type === 'web' && x.crawl)) {
    parts.push(`crawl of ${c.crawl!.bound} (${countOf(c.crawl!.found, 'page')} found in llms.txt and sitemaps)`);
  }
  const webs = sources.filter((x) => x.type === 'web' && !x.crawl);
  const web = webs.length;
  if (web > 0) {
    const capped = webs.reduce((n, w) => n + Object.values(w.capped ?? {}).reduce((a, b) => a + b, 0), 0);
    // Hosts, not only a count: the operator sees where the requests would go.
    const hosts = [...new Set(webs.map((w) => w.host ?? hostOf(w.display_name)))];
    const on = hosts.length > 3 ? `${hosts.slice(0, 3).join(', ')} and ${countOf(hosts.length - 3, 'more host')}` : hosts.join(', ');
    parts.push(`${web} web page${web === 1 ? '' : 's'} on ${on}${capped ? ` (${formatCount(capped)} over the caps)` : ''}`);
  }
  return parts.join(' + ');
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** "caps skip 247 (max_files 200, too_large 47)", or '' when the caps leave nothing out. */
export function cappedText(capped: Record<string, number> | undefined): string {
  const entries = Object.entries(capped ?? {}).filter(([, n]) => n > 0);
  if (entries.length === 0) return '';
  const total = entries.reduce((n, [, v]) => n + v, 0);
  return `caps skip ${formatCount(total)} (${entries.map(([k, v]) => `${k} ${formatCount(v)}`).join(', ')})`;
}

/** Sums per-source cap counts into one record for the approval answer. */
export function mergeCounts(records: (Record<string, number> | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r ?? {})) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function shortSha(sha: string | undefined): string {
  return sha ? sha.slice(0, 7) : 'unknown';
}
