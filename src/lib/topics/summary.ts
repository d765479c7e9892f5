/** Human summaries for approval prompts and commit messages. Pure. */

export interface SourceSummaryInput {
  type: 'git' | 'web';
  display_name: string;
  file_count?: number;
  total_bytes?: number | null;
  languages?: { name: string }[];
  filtered?: boolean;
  reachable?: boolean;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
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
 * `DioxusLabs/dioxus: 1,247 files, ~98 MB, Rust + 1 web page`, or with paths
 * `341 files, ~12 MB (filtered from DioxusLabs/dioxus)`.
 */
export function approvalSummary(sources: SourceSummaryInput[]): string {
  const parts: string[] = [];
  for (const s of sources.filter((x) => x.type === 'git')) {
    const bits = [`${formatCount(s.file_count ?? 0)} files`];
    if (typeof s.total_bytes === 'number') bits.push(formatBytes(s.total_bytes));
    else bits.push('size unknown');
    const langs = (s.languages ?? []).slice(0, 2).map((l) => l.name);
    if (langs.length) bits.push(langs.join(', '));
    parts.push(s.filtered ? `${bits.join(', ')} (filtered from ${s.display_name})` : `${s.display_name}: ${bits.join(', ')}`);
  }
  const web = sources.filter((x) => x.type === 'web').length;
  if (web > 0) parts.push(`${web} web page${web === 1 ? '' : 's'}`);
  return parts.join(' + ');
}

export function shortSha(sha: string | undefined): string {
  return sha ? sha.slice(0, 7) : 'unknown';
}
