/**
 * `topic create`: the work from parsed flags, with no oclif import, so the start-up fast path
 * (cli/fast.ts) runs `topic create --json` (by --input or by flags) as the oclif command
 * (commands/topic/create.ts) does. Creates are the most frequent mutation, and oclif's start was
 * about a quarter of a small one's CPU.
 */
import { readFileSync } from 'node:fs';

import { EXIT, TkomaError } from '../lib/errors.js';
import type { Progress } from '../lib/progress.js';
import { MAX_PAGES_CAP_SETTING } from '../lib/sources/crawl/options.js';
import { maxPagesCapOf } from '../lib/store/config.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import { type CreateResult, createTopic } from '../lib/topics/create.js';
import type { ApprovalRequired } from '../lib/topics/create-approval.js';
import type { CreateDryRun } from '../lib/topics/dry-run.js';
import { flagNames, validateCreateRequest } from '../lib/topics/request.js';
import { assignDefined, readInput } from './output.js';

/** The command's flags as oclif parses them (the fast path gives the subset its spec names). */
export interface TopicCreateFlags {
  json?: boolean;
  root?: string;
  input?: string;
  title?: string;
  body?: string;
  'body-file'?: string;
  git?: string[];
  ref?: string;
  path?: string[];
  web?: string[];
  crawl: boolean;
  'max-pages'?: number;
  'max-depth'?: number;
  'crawl-scope'?: string;
  'crawl-include'?: string[];
  'crawl-exclude'?: string[];
  npm?: string[];
  tag?: string[];
  'max-age-days'?: number;
  'trust-score'?: number;
  'topic-id'?: string;
  approve?: string;
  yes: boolean;
  'dry-run': boolean;
  ghost?: string;
  model?: string;
  embedder?: string;
}

/** What the command asks of where it runs: a terminal to ask on, and progress for people. */
export interface CreateIo {
  canAsk(): boolean;
  confirm(question: string): Promise<boolean>;
  progress(): Promise<Progress>;
  /** The summary an operator at a terminal reads before "Approve?". */
  approvalText(r: ApprovalRequired): string;
}

export type TopicCreateAnswer = ApprovalRequired | CreateResult | CreateDryRun;

export async function runTopicCreate(f: TopicCreateFlags, io: CreateIo): Promise<TopicCreateAnswer> {
  const raw = readInput(f.input);
  if ((f.ref || f.path) && (f.git?.length ?? 0) !== 1) {
    throw new TkomaError('INVALID_INPUT', '--ref and --path apply to exactly one --git source; use --input for several');
  }
  const root = requireRoot(resolveRootPath(f.root));
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
    ...flagNames(f as unknown as Record<string, unknown>, { title: 'title', body: 'body', tags: 'tag', max_age_days: 'max-age-days', trust_score: 'trust-score', topic_id: 'topic-id' }),
    ...(f['body-file'] ? { body: '--body-file' } : {}),
  };
  const req = validateCreateRequest(raw, names, { maxPagesCap });
  if (f['dry-run']) {
    const { dryRunCreate } = await import('../lib/topics/dry-run.js');
    return dryRunCreate(root, req, await io.progress());
  }
  const author = { ghost: f.ghost, model: f.model };
  // An operator at a terminal is asked here; a ghost (no terminal, or --json) gets a pending request.
  const atTerminal = io.canAsk();
  let result: ApprovalRequired | CreateResult;
  try {
    result = await createTopic(root, req, { approve: f.approve, yes: f.yes, author, embedderFlag: f.embedder, progress: await io.progress(), ...(atTerminal ? { record: false } : {}) });
  } catch (err) {
    // The gateway's line for a denial, beside the error itself.
    if (err instanceof TkomaError && typeof err.details.approval_line === 'string') process.stderr.write(err.details.approval_line + '\n');
    throw err;
  }
  if (result.status !== 'approval_required') return result;
  if (atTerminal) {
    process.stderr.write(io.approvalText(result) + '\n');
    if (!(await io.confirm('Approve?'))) throw new TkomaError('DECLINED', `not created: ${result.topic_id} was not approved`, { topic_id: result.topic_id });
    return createTopic(root, req, { yes: true, author, embedderFlag: f.embedder, progress: await io.progress() });
  }
  process.stderr.write(result.approval_line + '\n');
  return result;
}

export function topicCreateExitCode(result: TopicCreateAnswer): number {
  return result.status === 'approval_required' ? EXIT.APPROVAL_REQUIRED : 0;
}

type CrawlFlagValues = Pick<TopicCreateFlags, 'crawl' | 'web' | 'max-pages' | 'max-depth' | 'crawl-scope' | 'crawl-include' | 'crawl-exclude'>;

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

/** `zod@3.23.8`, `@scope/name@^1`, `zod` → an npm source (the version after the last `@` that is not the scope's). */
function npmFlagSource(spec: string): Record<string, string> {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { type: 'npm', package: spec.slice(0, at), version: spec.slice(at + 1) } : { type: 'npm', package: spec };
}
