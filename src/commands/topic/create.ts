import { BaseCommand, oclifFlags } from '../../cli/base.js';
import { runTopicCreate, type TopicCreateAnswer, type TopicCreateFlags, topicCreateExitCode } from '../../cli/creating.js';
import { paint } from '../../cli/render.js';
import { TOPIC_CREATE_SPEC } from '../../cli/spec.js';
import type { ApprovalRequired } from '../../lib/topics/create-approval.js';
import type { CreateDryRun } from '../../lib/topics/dry-run.js';
import { skipLines } from '../../lib/topics/skip-report.js';
import { countOf, formatBytes } from '../../lib/topics/summary.js';

export default class TopicCreate extends BaseCommand<typeof TopicCreate> {
  static summary = 'Create a reference topic from git repositories and web pages (two-phase, with approval).';
  static description = `Without --yes this only gathers metadata (files, size, languages; nothing is sent to web pages) and answers approval_required, exit code 4, with an APPROVAL_REQUIRED:REFERENCE_TOPIC_CREATE:<summary> line on stderr. Who approves is the root's \`[approval] mode\`: \`operator\` (the default) records a pending request (\`request_id\`) that the operator decides with \`tkoma-ref approvals\`, \`approve ID\` or \`deny ID\`; the identical request then proceeds, or fails with APPROVAL_DENIED (status 12). \`token\` answers a token instead, for gateways: the same request with --approve <token> proceeds, once. --yes is the operator's own approval. At a terminal (stdin and stdout both terminals, no --json) it shows the summary and asks "Approve? [y/N]" instead; answering no exits with status 12 (DECLINED), nothing written.
--dry-run lists the files that would be fetched, what would be skipped and why (per reason and folder), and the estimated chunks and time, and writes nothing (no token either).
--crawl makes each --web URL the start of a crawl of its documentation site (robots.txt, llms.txt, sitemaps, then links; defaults: the pages under the URL's folder, up to 200, 5 links deep), bounded by --max-pages, --max-depth, --crawl-scope, --crawl-include and --crawl-exclude; --max-pages may not exceed [crawl] max_pages_cap of tkoma-ref.toml (1000 unless set).
Several sources, or refs and paths per source: use --input JSON.`;
  static examples = [
    `<%= config.bin %> topic create --title "Dioxus - Rust UI Framework" --git https://github.com/DioxusLabs/dioxus --path README.md --path docs/ --web https://dioxuslabs.com/learn/0.6/ --tag rust --json`,
    `<%= config.bin %> topic create --title "MiniSearch" --git https://github.com/lucaong/minisearch --path README.md --path src/ --dry-run`,
    `<%= config.bin %> topic create --title "Dioxus guide" --web https://dioxuslabs.com/learn/0.6/ --crawl --max-pages 300 --crawl-exclude "**/changelog/**" --json`,
  ];

  static flags = oclifFlags(TOPIC_CREATE_SPEC);

  protected async execute(): Promise<TopicCreateAnswer> {
    return runTopicCreate(this.flags as TopicCreateFlags, {
      canAsk: () => this.canAsk(),
      confirm: (question) => this.confirm(question),
      progress: () => this.progress(),
      approvalText: (r) => this.approvalText(r),
    });
  }

  protected exitCodeFor(result: TopicCreateAnswer): number {
    return topicCreateExitCode(result);
  }

  private approvalText(r: ApprovalRequired): string {
    return [
      `Create reference topic '${r.title}' (${r.topic_id})?`,
      `  ${r.summary}`,
      ...r.sources.flatMap((s) => sourceLines(s)),
      ...(r.estimate ? [`  ${r.estimate.summary}`] : []),
      ...skipLines(r.skipped).map((l) => `  ${l}`),
      ...r.sources.filter((s) => s.description).map((s) => `  ${s.display_name}: ${s.description}`),
    ].join('\n');
  }

  private dryRunText(r: CreateDryRun, shown = 20): string {
    const size = r.total_bytes === null ? 'size known at fetch time' : formatBytes(r.total_bytes);
    return [
      `Dry run: would create ${r.topic_id} ('${r.title}'): ${countOf(r.file_count, 'file')}, ${size}. Nothing was written.`,
      ...r.files.slice(0, shown).map((f) => `  ${f.path}${f.bytes === null ? '' : ` (${formatBytes(f.bytes)})`}`),
      ...(r.files.length > shown ? [`  … and ${countOf(r.files.length - shown, 'more file')} (--json lists them all)`] : []),
      ...skipLines(r.skipped),
      ...r.skipped.sample.slice(0, 10).map((s) => `  - ${s.path}: ${s.reason}`),
      ...r.caps.notes.map((n) => `note: ${n}`),
      ...(r.estimate ? [`estimate: ${r.estimate.summary}`] : []),
    ].join('\n');
  }

  protected renderHuman(r: TopicCreateAnswer): string {
    if (r.status === 'dry_run') return this.dryRunText(r);
    if (r.status === 'approval_required') {
      const how = r.token
        ? [`Approve by running the same command with: --approve ${r.token}`, `(or --yes as the operator). The token approves this request once; it expires ${r.expires_at}.`]
        : [
            `Waiting for the operator: request ${r.request_id} (expires ${r.expires_at}).`,
            `  tkoma-ref approve ${r.request_id}      # then run the same command again`,
            `  tkoma-ref deny ${r.request_id} --note "only docs/"`,
          ];
      return [this.approvalText(r), '', ...how].join('\n');
    }
    const lines = [
      `${paint('green', 'Created', process.stdout)} ${r.topic_id}: ${countOf(r.file_count, 'file')}, ${countOf(r.chunk_count, 'chunk')} (commit ${r.commit.slice(0, 7)})`,
    ];
    for (const s of r.sources) lines.push(`  ${s.ok ? '✓' : '✗'} ${s.url}${s.commit ? `@${s.commit.slice(0, 7)}` : ''}: ${s.ok ? countOf(s.file_count, 'file') : s.error}`);
    lines.push(...skipLines(r.skipped).map((l) => `  ${l}`));
    if (r.skipped.file) lines.push(`  every skipped path and its reason: references/${r.topic_id}/${r.skipped.file}`);
    const v = r.vector_search as { pending?: number; building?: { pid?: number } };
    if (v.pending) lines.push(`  searchable now; ${countOf(v.pending, 'chunk')} wait for vectors${v.building?.pid ? ` (building in the background, pid ${v.building.pid})` : ' (`tkoma-ref index embed` builds them)'}`);
    // A failed source is already its own ✗ line above: its warning would say it twice.
    for (const w of r.warnings.filter((w) => !r.sources.some((s) => !s.ok && w.startsWith(`${s.url}:`)))) lines.push(`  warning: ${w}`);
    return lines.join('\n');
  }
}

/** Every URL in full and local paths marked: what the operator approves, source by source. */
function sourceLines(s: ApprovalRequired['sources'][number]): string[] {
  const ref = s.ref ?? s.default_branch;
  return [`  - ${s.display_name}${s.type === 'git' && ref ? ` @ ${ref}` : ''}${s.paths ? ` (paths: ${s.paths.join(', ')})` : ''}`];
}
