import { readFileSync } from 'node:fs';

import { Flags } from '@oclif/core';

import { assignDefined, authorFlags, BaseCommand, embedderFlag, inputFlag, wholeNumberFlag } from '../../cli/base.js';
import { paint } from '../../cli/render.js';
import { EXIT, TkomaError } from '../../lib/errors.js';
import { MAX_PAGES_CAP_SETTING } from '../../lib/sources/crawl/options.js';
import { maxPagesCapOf } from '../../lib/store/config.js';
import { type ApprovalRequired, type CreateResult, createTopic } from '../../lib/topics/create.js';
import type { CreateDryRun } from '../../lib/topics/dry-run.js';
import { flagNames, validateCreateRequest } from '../../lib/topics/request.js';
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

  static flags = {
    ...inputFlag,
    title: Flags.string({ description: 'Topic title.' }),
    body: Flags.string({ description: 'Topic description (markdown) written by the ghost.' }),
    'body-file': Flags.string({ description: 'Read the body from a file.', exclusive: ['body'] }),
    git: Flags.string({ description: 'Git source URL (https, ssh, git@host:path, file://).', multiple: true }),
    ref: Flags.string({ description: 'Branch, tag or full commit of the --git source.' }),
    path: Flags.string({ description: 'Folder (trailing /) or file of the --git source to fetch.', multiple: true }),
    web: Flags.string({ description: 'Web page URL (one page per source; with --crawl, the start of a crawl).', multiple: true }),
    crawl: Flags.boolean({ description: 'Crawl the documentation site from each --web URL instead of fetching the one page.', default: false }),
    'max-pages': wholeNumberFlag({ description: 'With --crawl: most pages kept per site (default 200; at most [crawl] max_pages_cap).', min: 1 }),
    'max-depth': wholeNumberFlag({ description: 'With --crawl: most link hops from the start page (default 5).', min: 1 }),
    'crawl-scope': Flags.string({ description: 'With --crawl: prefix (the pages under the URL\'s folder, the default) or host (the whole host).', options: ['prefix', 'host'] }),
    'crawl-include': Flags.string({ description: 'With --crawl: only URL paths matching this glob (repeatable).', multiple: true }),
    'crawl-exclude': Flags.string({ description: 'With --crawl: leave out URL paths matching this glob (repeatable).', multiple: true }),
    npm: Flags.string({ description: 'npm package, optionally @version, range or dist-tag: zod@3.23.8, @scope/name@^1.', multiple: true }),
    tag: Flags.string({ description: 'Tag (repeatable).', multiple: true }),
    'max-age-days': Flags.integer({ description: 'Days until the topic is stale (0 = never). Default 30.' }),
    'trust-score': Flags.integer({ description: 'Trust score 0-10. Default 5.' }),
    'topic-id': Flags.string({ description: 'Topic id (default: topic-<slug of title>).' }),
    approve: Flags.string({ description: 'Approval token from phase 1 (only when `[approval] mode = "token"`).' }),
    yes: Flags.boolean({ description: "Operator's explicit approval: fetch without a token.", default: false }),
    'dry-run': Flags.boolean({ description: 'Show what would be fetched and skipped, and the estimated chunks and time; write nothing.', default: false }),
    ...authorFlags,
    ...embedderFlag,
  };

  protected async execute(): Promise<ApprovalRequired | CreateResult | CreateDryRun> {
    const f = this.flags;
    const raw = this.readInput(f.input);
    if ((f.ref || f.path) && (f.git?.length ?? 0) !== 1) {
      throw new TkomaError('INVALID_INPUT', '--ref and --path apply to exactly one --git source; use --input for several');
    }
    const root = this.root();
    const maxPagesCap = await maxPagesCapOf(root);
    const crawl = crawlFlags(f, maxPagesCap);
    const flagSources = [
      ...(f.git ?? []).map((url) => assignDefined({ type: 'git', url }, { ref: f.ref, paths: f.path })),
      ...(f.web ?? []).map((url) => (crawl ? { type: 'web', url, crawl } : { type: 'web', url })),
      ...(f.npm ?? []).map(npmFlagSource),
    ];
    if (flagSources.length) raw.sources = [...((raw.sources as unknown[]) ?? []), ...flagSources];
    assignDefined(raw, {
      title: f.title,
      body: f['body-file'] ? readFileSync(f['body-file'], 'utf8') : f.body,
      tags: f.tag,
      max_age_days: f['max-age-days'],
      trust_score: f['trust-score'],
      topic_id: f['topic-id'],
    });
    const names = {
      ...flagNames(f, { title: 'title', body: 'body', tags: 'tag', max_age_days: 'max-age-days', trust_score: 'trust-score', topic_id: 'topic-id' }),
      ...(f['body-file'] ? { body: '--body-file' } : {}),
    };
    const req = validateCreateRequest(raw, names, { maxPagesCap });
    if (f['dry-run']) {
      const { dryRunCreate } = await import('../../lib/topics/dry-run.js');
      return dryRunCreate(root, req, await this.progress());
    }
    const author = { ghost: f.ghost, model: f.model };
    // An operator at a terminal is asked here; a ghost (no terminal, or --json) gets a pending request.
    const atTerminal = this.canAsk();
    let result: ApprovalRequired | CreateResult;
    try {
      result = await createTopic(root, req, { approve: f.approve, yes: f.yes, author, embedderFlag: f.embedder, progress: await this.progress(), ...(atTerminal ? { record: false } : {}) });
    } catch (err) {
      // The gateway's line for a denial, beside the error itself.
      if (err instanceof TkomaError && typeof err.details.approval_line === 'string') process.stderr.write(err.details.approval_line + '\n');
      throw err;
    }
    if (result.status !== 'approval_required') return result;
    if (atTerminal) {
      process.stderr.write(this.approvalText(result) + '\n');
      if (!(await this.confirm('Approve?'))) throw new TkomaError('DECLINED', `not created: ${result.topic_id} was not approved`, { topic_id: result.topic_id });
      return createTopic(root, req, { yes: true, author, embedderFlag: f.embedder, progress: await this.progress() });
    }
    process.stderr.write(result.approval_line + '\n');
    return result;
  }

  protected exitCodeFor(result: ApprovalRequired | CreateResult | CreateDryRun): number {
    return result.status === 'approval_required' ? EXIT.APPROVAL_REQUIRED : 0;
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

  protected renderHuman(r: ApprovalRequired | CreateResult | CreateDryRun): string {
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

type CrawlFlagValues = { crawl: boolean; web?: string[]; 'max-pages'?: number; 'max-depth'?: number; 'crawl-scope'?: string; 'crawl-include'?: string[]; 'crawl-exclude'?: string[] };

/** The `crawl` object the crawl flags describe, or undefined without --crawl (its bounds alone are an error). */
function crawlFlags(f: CrawlFlagValues, maxPagesCap: number): Record<string, unknown> | undefined {
  const bounds = (['max-pages', 'max-depth', 'crawl-scope', 'crawl-include', 'crawl-exclude'] as const).filter((k) => f[k] !== undefined);
  if (!f.crawl) {
    if (bounds.length > 0) throw new TkomaError('INVALID_INPUT', `--${bounds[0]} applies to a crawl: add --crawl`, { field: `--${bounds[0]}` });
    return undefined;
  }
  if (!f.web?.length) throw new TkomaError('INVALID_INPUT', '--crawl applies to the --web URLs: give the site\'s start URL with --web', { field: '--crawl' });
  const max = f['max-pages'];
  if (max !== undefined && max > maxPagesCap) {
    throw new TkomaError('INVALID_INPUT', `--max-pages is ${max}, over the cap of ${maxPagesCap} (raise \`${MAX_PAGES_CAP_SETTING}\` in tkoma-ref.toml)`, { field: '--max-pages', cap: maxPagesCap, setting: MAX_PAGES_CAP_SETTING });
  }
  return assignDefined({}, { scope: f['crawl-scope'], include: f['crawl-include'], exclude: f['crawl-exclude'], max_pages: f['max-pages'], max_depth: f['max-depth'] });
}

/** Every URL in full and local paths marked: what the operator approves, source by source. */
function sourceLines(s: ApprovalRequired['sources'][number]): string[] {
  const ref = s.ref ?? s.default_branch;
  return [`  - ${s.display_name}${s.type === 'git' && ref ? ` @ ${ref}` : ''}${s.paths ? ` (paths: ${s.paths.join(', ')})` : ''}`];
}

/** `zod@3.23.8`, `@scope/name@^1`, `zod` → an npm source (the version after the last `@` that is not the scope's). */
function npmFlagSource(spec: string): Record<string, string> {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { type: 'npm', package: spec.slice(0, at), version: spec.slice(at + 1) } : { type: 'npm', package: spec };
}
