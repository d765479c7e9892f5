/**
 * Renders BENCHMARKS.md from the records, pure: headline tables (quality with the published
 * baselines, latency, throughput, sync) with the targets marked ✓/✗, then every record in
 * detail, each table followed by the commands that produced it. Nobody types figures in here.
 */
import { type BenchName, type BenchRecord, type Machine, metric, metricsOf } from './records.js';
import { BASELINES, latencyVerdict, mark, peersVerdict, qualityVerdict, syncVerdict, throughputVerdict } from './targets.js';

export interface ReportOptions {
  title?: string;
  /** Where the records live, named in the header. */
  source?: string;
  /** A line under the title (smoke reports say they are not real figures). */
  preface?: string;
}

// ---- formatting -------------------------------------------------------------------------------

export function fmtNumber(v: number | undefined, kind: 'score' | 'ms' | 'rate' | 'count' | 'mb' | 's' = 'count'): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  switch (kind) {
    case 'score':
      return v.toFixed(3);
    case 'ms':
    case 's':
      return v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US');
    case 'rate':
      return v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US');
    case 'mb':
      return Math.round(v).toLocaleString('en-US');
    default:
      return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(3);
  }
}

/** Guesses how to print a metric from its name (`_ms`, `_per_s`, `ndcg10`…). */
export function kindOf(name: string): 'score' | 'ms' | 'rate' | 'count' | 'mb' | 's' {
  if (/^(ndcg|recall|mrr)\d+$/.test(name)) return 'score';
  if (name.endsWith('_ms')) return 'ms';
  if (name.endsWith('_per_s')) return 'rate';
  if (name.endsWith('_mb')) return 'mb';
  if (name.endsWith('_s')) return 's';
  return 'count';
}

const esc = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(esc).join(' | ')} |`;
  return [line(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

// ---- ordering ---------------------------------------------------------------------------------

const rank = (order: readonly string[], v: string): number => {
  const i = order.indexOf(v);
  return i < 0 ? order.length : i;
};
const DATASETS = ['scifact', 'cosqa'];
const MODES = ['lexical', 'vector', 'hybrid'];
const EMBEDDERS = ['none', 'use-lite'];
const STAGES = ['fetch', 'chunk', 'lexical', 'lexical-save', 'embed', 'create'];
const PATHS = ['cold', 'warm (serve, CLI)', 'warm (serve, socket)', 'warm (in-process)'];
const SYNC_PATHS = ['command', 'watch'];
const PEER_MODES = ['index from scratch', 'cold search, 10 hits', 'cold search, 10 hits, no NODE_EXTRA_CA_CERTS', 'warm MCP, 10 hits', 'warm MCP, 100 hits'];

function sizeOf(r: BenchRecord): number {
  return metric(r, 'chunks') ?? metric(r, 'files') ?? 0;
}

function sorted(records: readonly BenchRecord[], bench: BenchName): BenchRecord[] {
  const rs = records.filter((r) => r.bench === bench);
  const cmp = (a: BenchRecord, b: BenchRecord): number => {
    switch (bench) {
      case 'quality':
        return (
          rank(DATASETS, a.dataset) - rank(DATASETS, b.dataset) ||
          a.dataset.localeCompare(b.dataset) ||
          rank(EMBEDDERS, a.embedder) - rank(EMBEDDERS, b.embedder) ||
          a.embedder.localeCompare(b.embedder) ||
          rank(MODES, a.mode) - rank(MODES, b.mode)
        );
      case 'repo-qa':
        return (a.dataset === 'all repositories' ? 1 : 0) - (b.dataset === 'all repositories' ? 1 : 0) ||
          a.dataset.localeCompare(b.dataset) || b.mode.length - a.mode.length || a.mode.localeCompare(b.mode);
      case 'latency':
        return sizeOf(a) - sizeOf(b) || rank(PATHS, a.mode) - rank(PATHS, b.mode) || a.mode.localeCompare(b.mode);
      case 'peers':
        return a.dataset.localeCompare(b.dataset) || rank(PEER_MODES, a.mode) - rank(PEER_MODES, b.mode) || a.mode.localeCompare(b.mode);
      case 'throughput':
        return a.dataset.localeCompare(b.dataset) || rank(STAGES, a.mode) - rank(STAGES, b.mode) || a.embedder.localeCompare(b.embedder);
      default:
        return sizeOf(a) - sizeOf(b) || a.dataset.localeCompare(b.dataset) || rank(SYNC_PATHS, a.mode.split(' ')[0]!) - rank(SYNC_PATHS, b.mode.split(' ')[0]!) || a.mode.length - b.mode.length;
    }
  };
  return rs.sort(cmp);
}

function commandsOf(rs: readonly BenchRecord[]): string {
  const cmds = [...new Set(rs.map((r) => r.command))];
  if (cmds.length === 0) return '';
  return `Produced by:\n\n\`\`\`sh\n${cmds.join('\n')}\n\`\`\``;
}

// ---- headline tables --------------------------------------------------------------------------

function baselineCell(r: BenchRecord): string {
  const list = BASELINES[r.dataset];
  if (!list) return '';
  if (r.mode === 'lexical' || r.dataset !== 'scifact') return `BM25 ${list[0]!.ndcg10.toFixed(3)}`;
  return list
    .filter((b) => b.system.includes('dense'))
    .map((b) => `${b.system.split(' ')[0]} ${b.ndcg10.toFixed(3)}`)
    .join(' · ');
}

export function qualityTable(records: readonly BenchRecord[]): string {
  const rs = sorted(records, 'quality');
  if (rs.length === 0) return '_No quality records yet._';
  const rows = rs.map((r) => [
    r.dataset,
    r.embedder,
    r.mode,
    fmtNumber(metric(r, 'ndcg10'), 'score'),
    fmtNumber(metric(r, 'recall10'), 'score'),
    fmtNumber(metric(r, 'mrr10'), 'score'),
    baselineCell(r),
    mark(qualityVerdict(r, records)),
  ]);
  return mdTable(['data set', 'embedder', 'mode', 'nDCG@10', 'Recall@10', 'MRR@10', 'published nDCG@10', 'target'], rows);
}

export function repoQaTable(records: readonly BenchRecord[]): string {
  const rs = sorted(records, 'repo-qa');
  if (rs.length === 0) return '_No repo-qa records yet._';
  const rows = rs.map((r) => [
    r.dataset,
    r.mode,
    r.embedder,
    fmtNumber(metric(r, 'top3'), 'score'),
    fmtNumber(metric(r, 'ndcg10'), 'score'),
    fmtNumber(metric(r, 'scraps3'), 'score'),
    fmtNumber(metric(r, 'dups3'), 'score'),
    fmtNumber(metric(r, 'queries')),
  ]);
  return mdTable(['repository', 'code', 'embedder', 'useful file in top 3', 'nDCG@10', 'scraps in top 3', 'duplicate in top 3', 'questions'], rows);
}

export function latencyTable(records: readonly BenchRecord[]): string {
  const rs = sorted(records, 'latency');
  if (rs.length === 0) return '_No latency records yet._';
  const rows = rs.map((r) => [
    r.dataset,
    fmtNumber(metric(r, 'chunks')),
    r.mode,
    r.embedder,
    fmtNumber(metric(r, 'queries')),
    `${fmtNumber(metric(r, 'p50_ms'), 'ms')} ms`,
    `${fmtNumber(metric(r, 'p95_ms'), 'ms')} ms`,
    `${fmtNumber(metric(r, 'peak_rss_mb'), 'mb')} MB`,
    mark(latencyVerdict(r)),
  ]);
  return mdTable(['topic', 'chunks', 'path', 'embedder', 'queries', 'p50', 'p95', 'peak RSS', 'target'], rows);
}

export function throughputTable(records: readonly BenchRecord[]): string {
  const rs = sorted(records, 'throughput');
  if (rs.length === 0) return '_No throughput records yet._';
  const rows = rs.map((r) => [
    r.dataset,
    r.mode,
    r.embedder,
    fmtNumber(metric(r, 'files')),
    fmtNumber(metric(r, 'chunks')),
    fmtNumber(metric(r, 'seconds'), 's'),
    fmtNumber(metric(r, 'files_per_s'), 'rate'),
    fmtNumber(metric(r, 'chunks_per_s'), 'rate'),
    `${fmtNumber(metric(r, 'peak_rss_mb'), 'mb')} MB`,
    mark(throughputVerdict(r)),
  ]);
  return mdTable(['corpus', 'stage', 'embedder', 'files', 'chunks', 'seconds', 'files/s', 'chunks/s', 'peak RSS (process so far)', 'target'], rows);
}

export function syncTable(records: readonly BenchRecord[]): string {
  const rs = sorted(records, 'sync');
  if (rs.length === 0) return '_No sync records yet._';
  const rows = rs.map((r) => [
    r.dataset,
    r.mode,
    r.embedder,
    fmtNumber(metric(r, 'runs')),
    `${fmtNumber(metric(r, 'median_ms'), 'ms')} ms`,
    `${fmtNumber(metric(r, 'max_ms'), 'ms')} ms`,
    mark(syncVerdict(r)),
  ]);
  return mdTable(['topic', 'path', 'embedder', 'runs', 'median change → searchable', 'slowest', 'target'], rows);
}

export function gitSyncTable(records: readonly BenchRecord[]): string {
  const rs = sorted(records, 'git-sync');
  if (rs.length === 0) return '_No git sync records yet._';
  const rows = rs.map((r) => [
    r.dataset,
    r.mode,
    fmtNumber(metric(r, 'mutations')),
    `${fmtNumber(metric(r, 'commits'))} (${fmtNumber(metric(r, 'merge_commits'))} merges)`,
    fmtNumber(metric(r, 'syncs')),
    fmtNumber(metric(r, 'auto_merged')),
    fmtNumber(metric(r, 'conflicts')),
    `${fmtNumber(metric(r, 'sync_p50_ms'), 'ms')} / ${fmtNumber(metric(r, 'sync_max_ms'), 'ms')} ms`,
    `${fmtNumber(metric(r, 'sync_cpu_ms'), 'ms')} ms`,
    fmtNumber(metric(r, 'orphans')),
  ]);
  return mdTable(['workload', 'rounds', 'mutations', 'commits on the remote', 'syncs', 'topics merged by themselves', 'conflicts', 'sync p50 / max', 'CPU per sync', 'orphaned commits'], rows);
}

/** p50, then the peak RSS when there is one: "6.3 s, 212 MB". */
function peerCell(r: BenchRecord, who: 'ours' | 'qmd'): string {
  const p50 = metric(r, `${who}_p50_ms`);
  const rss = metric(r, `${who}_peak_rss_mb`);
  const time = p50 !== undefined && p50 >= 1000 ? `${(p50 / 1000).toFixed(2)} s` : `${fmtNumber(p50, 'ms')} ms`;
  return rss === undefined ? time : `${time}, ${fmtNumber(rss, 'mb')} MB`;
}

/** Wall-time ratio, then the CPU-time ratio (the steadier of the two on a busy machine). */
function ratioCell(r: BenchRecord): string {
  const wall = metric(r, 'ratio');
  const ours = metric(r, 'ours_cpu_ms');
  const qmd = metric(r, 'qmd_cpu_ms');
  const cpu = ours !== undefined && qmd !== undefined && qmd > 0 ? `, CPU ${(ours / qmd).toFixed(2)}×` : '';
  return `${wall?.toFixed(2) ?? '–'}×${cpu}`;
}

const kb = (bytes: number | undefined): string => (bytes === undefined ? '–' : (bytes / 1000).toFixed(bytes < 1000 ? 2 : 1));

export function peersTable(records: readonly BenchRecord[]): string {
  const rs = sorted(records, 'peers');
  if (rs.length === 0) return '_No head-to-head records yet (needs a qmd binary)._';
  const rows = rs.map((r) => [
    r.dataset,
    r.mode,
    fmtNumber(metric(r, 'runs')),
    peerCell(r, 'ours'),
    peerCell(r, 'qmd'),
    ratioCell(r),
    `${metric(r, 'ours_mean_hits') ?? '–'} / ${metric(r, 'qmd_mean_hits') ?? '–'}`,
    `${kb(metric(r, 'ours_mean_bytes'))} / ${kb(metric(r, 'qmd_mean_bytes'))}`,
    `${fmtNumber(metric(r, 'ours_cpu_ms'), 'ms')} / ${fmtNumber(metric(r, 'qmd_cpu_ms'), 'ms')}`,
    `${metric(r, 'load_min')?.toFixed(1) ?? '–'}–${metric(r, 'load_max')?.toFixed(1) ?? '–'}`,
    mark(peersVerdict(r)),
  ]);
  return mdTable(['data set', 'measurement', 'runs', 'tkoma-ref p50', 'qmd p50', 'ratio', 'hits (ours / qmd)', 'answer kB (ours / qmd)', 'CPU ms (ours / qmd)', 'load (1 min)', 'target'], rows);
}

// ---- details ----------------------------------------------------------------------------------

function machineLine(m: Machine): string {
  return `${m.cpus} × ${m.model}, ${m.mem_gb} GB, Node ${m.node}`;
}

export function detailTable(records: readonly BenchRecord[], bench: BenchName): string {
  const rs = sorted(records, bench);
  if (rs.length === 0) return '';
  const names: string[] = [];
  for (const r of rs) for (const k of Object.keys(metricsOf(r))) if (!names.includes(k)) names.push(k);
  const rows = rs.map((r) => {
    const m = metricsOf(r);
    return [r.dataset, r.mode, r.embedder, ...names.map((n) => fmtNumber(m[n], kindOf(n))), r.date.slice(0, 16).replace('T', ' '), r.note ?? ''];
  });
  return mdTable(['dataset', 'mode', 'embedder', ...names, 'date (UTC)', 'note'], rows);
}

function baselinesTable(): string {
  const rows = Object.entries(BASELINES).flatMap(([set, list]) =>
    list.map((b) => [set, b.system, b.ndcg10.toFixed(3), b.recall10 === undefined ? '–' : b.recall10.toFixed(3)]),
  );
  return mdTable(['data set', 'system (published)', 'nDCG@10', 'Recall@10'], rows);
}

/** `optional`: measured only where an outside tool is installed, so left out until it has records. */
const SECTIONS: { bench: BenchName; title: string; table: (rs: readonly BenchRecord[]) => string; about: string; optional?: boolean }[] = [
  {
    bench: 'quality',
    title: 'Retrieval quality',
    table: qualityTable,
    about:
      'One file per document in a git repository, a topic created from it through the real `topic create` path, every query through `searchReferences` (limit 100), hits mapped back to documents (best rank per document), top 10 scored with trec_eval conventions.',
  },
  {
    bench: 'repo-qa',
    title: 'Answers from real repositories (repo-qa)',
    table: repoQaTable,
    about:
      'bench/repo-qa/questions.json: questions a developer asks about seven real repositories (installed packages committed as git repositories and fetched over file:// through `topic create`; retry and fast-json-stable-stringify were added for their example/ folders, with their questions written before any run), each with the files a person would open to answer it, written from the docs before any run. top-3 useful = share of questions with a graded file among the first 3 hits; nDCG@10 over distinct files (best rank per file); scraps = hits of fewer than 3 non-blank lines among the first 3; duplicate = first 3 hits holding the same text twice. `lexical (before)` is the code at 8ce9fd9 (its src/ run by the bench of 2b1f871 in a scratch copy, on today\'s questions); `lexical (examples ×1.1)` is today\'s code with examples at the docs weight they had before the example prior was measured (see fusion.ts).',
  },
  {
    bench: 'latency',
    title: 'Query latency',
    table: latencyTable,
    about:
      'cold = one whole `node bin/run.cjs search … --json --embedder none` process per query, no server running (Node start-up included); warm (serve, socket) = one request over the socket of a running `tkoma-ref serve` (round trip + search); warm (serve, CLI) = a whole CLI process that the server answers; warm (in-process) = repeated `searchReferences` in one process (builds without serve). p50/p95 over every query after one untimed warm-up.',
  },
  {
    bench: 'throughput',
    title: 'Indexing throughput',
    table: throughputTable,
    about:
      'Each stage timed on its own over a corpus of real files assembled from installed packages: fetch = the git fetch of the topic, chunk = chunkFile, lexical = building the BM25 index (lexical-save: writing it), embed = use-lite on a sample through the embedding cache, create = the whole `topic create` (lexical). Peak RSS is the process peak up to the end of the stage.',
  },
  {
    bench: 'sync',
    title: 'Incremental sync',
    table: syncTable,
    about:
      'One file changed in a large topic, then: command = the next `search --json` process finds the new text (edit to exit); watch = a running `watch --json` emits its sync event, then a `search --json` process finds the new text.',
  },
  {
    bench: 'git-sync',
    title: 'Sharing through git (sync)',
    table: gitSyncTable,
    optional: true,
    about:
      'Three clones of one knowledge root through a bare file:// remote; each makes random mutations on the same few topics (tags, a body paragraph, file status, refresh after the upstream moved, now and then a delete or a new topic), then every clone runs `tkoma-ref sync` in turn. Conflicts are resolved as an operator would (both sides\' lines kept, a topic deleted on one side and changed on the other kept) and finished with `sync --continue`; two quiet rounds end it. topics merged by themselves = topics changed on both sides that merged with no conflict; orphaned commits = commits a mutation reported that the remote\'s branch does not reach at the end (must be 0). Time and CPU per sync are of the whole CLI process with its git children (/usr/bin/time), for `file://`.',
  },
  {
    bench: 'peers',
    title: 'Head to head with qmd',
    table: peersTable,
    optional: true,
    about:
      '`npm run bench:peers -- --qmd PATH`: tkoma-ref and qmd on the same files, run alternately pair by pair (who goes first alternates too), embedder none on both. index = `init` + `topic create --yes` from a file:// git copy against qmd `collection add` into a fresh cache; cold = one whole process per query (`search --json --no-server --limit 10` against `qmd search --format json -n 10`, qmd through its own bin launcher); warm = one running MCP server each over stdio (`reference_search` against qmd `query` with one lex search and rerank false; that path of qmd takes 20 full-text results per search, so it never returns more than 20 hits). ratio = our p50 / qmd p50 (below 1: ours faster), then the same for mean CPU time. Peak RSS is the largest single process (/usr/bin/time). hits = mean hits returned: qmd ANDs the terms, so it often returns fewer; answer kB = mean size of what each side built and sent (stdout, or the JSON-RPC result); CPU ms = mean user + system time per run, children included (/usr/bin/time; for the MCP servers, the server process tree from /proc, in 10 ms ticks, so only the mean over many calls means something). CPU time and bytes move much less with the load than wall time. qmd is installed by hand outside the project; nothing here installs it.',
  },
];

export function renderReport(records: readonly BenchRecord[], opts: ReportOptions = {}): string {
  const out: string[] = [`# ${opts.title ?? 'Benchmarks'}`, ''];
  out.push(
    `Generated from \`${opts.source ?? 'docs/benchmarks.json'}\` by \`bench/lib/report.ts\`; every figure comes from a benchmark record. Regenerate with \`npm run bench\` (or one of \`npm run bench:quality|bench:latency|bench:throughput|bench:index-sync|bench:sync\`).`,
    '',
  );
  if (opts.preface) out.push(opts.preface, '');
  const machines = [...new Set(records.map((r) => machineLine(r.machine)))];
  if (machines.length) out.push(`Measured on: ${machines.join('; ')}.`, '');

  out.push('## Headline', '');
  for (const s of SECTIONS) {
    const rs = records.filter((r) => r.bench === s.bench);
    if (s.optional && rs.length === 0) continue;
    out.push(`### ${s.title}`, '', s.table(records), '');
    const cmds = commandsOf(rs);
    if (cmds) out.push(cmds, '');
  }

  out.push('## Published baselines', '', 'From `/work/shared/bench/README.md` (third-party figures on the same copies of the data).', '', baselinesTable(), '');

  out.push('## Details', '');
  for (const s of SECTIONS) {
    const rs = records.filter((r) => r.bench === s.bench);
    if (rs.length === 0) continue;
    out.push(`### ${s.title}`, '', s.about, '', detailTable(records, s.bench), '', commandsOf(rs), '');
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
