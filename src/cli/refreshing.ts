/**
 * `refresh`: the work from parsed flags and its rendering, with no oclif import, so the start-up
 * fast path (cli/fast.ts) runs `refresh --json` as the oclif command (commands/refresh.ts) does.
 */
import { asTkomaError, EXIT } from '../lib/errors.js';
import type { Progress } from '../lib/progress.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import type { RefreshDryRun } from '../lib/topics/dry-run.js';
import { type RefreshResult, refreshTopic, selectTopicsToRefresh } from '../lib/topics/refresh.js';
import { validateTopicIdField } from '../lib/topics/request.js';
import { resolveTopicId } from '../lib/topics/resolve.js';
import { skipLines } from '../lib/topics/skip-report.js';
import { table } from './render.js';

export interface RefreshFlags {
  json?: boolean;
  root?: string;
  stale: boolean;
  all: boolean;
  'dry-run': boolean;
  ghost?: string;
  model?: string;
  embedder?: string;
}

export interface RefreshOutput {
  /** The root is behind its remote as last fetched: refresh never pulls, so it says so. */
  warnings?: string[];
  topics: (RefreshResult | RefreshDryRun | { topic_id: string; error: { code: string; message: string } })[];
}

export async function runRefresh(f: RefreshFlags, refs: readonly string[], progressFor: () => Promise<Progress>): Promise<RefreshOutput> {
  const root = requireRoot(resolveRootPath(f.root));
  const ids: string[] = [];
  for (const id of refs) ids.push(validateTopicIdField(await resolveTopicId(root, id)));
  const selected = await selectTopicsToRefresh(root, { ids, stale: f.stale, all: f.all });
  const progress = await progressFor();
  const out: RefreshOutput = { topics: [] };
  const behind = (await import('../lib/sync/remote.js')).behindRemote(root);
  if (behind) {
    out.warnings = [behind.message];
    progress.warn(behind.message);
  }
  const dry = f['dry-run'] ? await import('../lib/topics/dry-run.js') : null;
  for (const id of selected) {
    try {
      if (dry) {
        out.topics.push(await dry.dryRunRefresh(root, id, { progress }));
        continue;
      }
      out.topics.push(await refreshTopic(root, id, { author: { ghost: f.ghost, model: f.model }, progress, embedderFlag: f.embedder }));
    } catch (err) {
      const e = asTkomaError(err);
      // With one named topic the failure is the answer; with several, report it and go on.
      if (selected.length === 1) throw e;
      out.topics.push({ topic_id: id, error: { code: e.code, message: e.message } });
    }
  }
  if (out.topics.some((t) => 'error' in t)) process.exitCode = EXIT.SOURCE_FAILED;
  return out;
}

export function renderRefresh(r: RefreshOutput): string {
  if (r.topics.length === 0) return 'Nothing to refresh.';
  if (r.topics.some((t) => 'dry_run' in t)) return r.topics.map((t) => ('dry_run' in t ? dryRunText(t) : `${t.topic_id}: failed: ${'error' in t ? t.error.message : ''}`)).join('\n\n');
  return table(
    r.topics.map((t) =>
      'error' in t
        ? { topic_id: t.topic_id, result: `failed: ${t.error.message}` }
        : 'dry_run' in t
          ? { topic_id: t.topic_id, result: 'dry run' }
          : { topic_id: t.topic_id, result: `+${t.added} ~${t.changed} -${t.removed} =${t.unchanged}`, sources: t.sources.map((s) => s.status).join(', '), commit: t.commit?.slice(0, 7) ?? '-' },
    ),
    [
      { key: 'topic_id', header: 'TOPIC' },
      { key: 'result', header: 'FILES (+ ~ - =)', max: 60 },
      { key: 'sources', header: 'SOURCES' },
      { key: 'commit', header: 'COMMIT' },
    ],
  );
}

/** One topic's dry run in words: the counts, the first paths of each kind, skips and the estimate. */
function dryRunText(t: RefreshDryRun, shown = 10): string {
  const list = (sign: string, paths: string[]) => [...paths.slice(0, shown).map((p) => `  ${sign} ${p}`), ...(paths.length > shown ? [`  ${sign} … ${paths.length - shown} more`] : [])];
  return [
    `Dry run: ${t.topic_id} would get +${t.added.length} ~${t.changed.length} -${t.removed.length} (${t.unchanged} unchanged). Nothing was written.`,
    ...t.sources.map((s) => `  ${s.url}: ${s.status}${s.error ? ` (${s.error})` : ''}`),
    ...list('+', t.added),
    ...list('~', t.changed),
    ...list('-', t.removed),
    ...t.conflicts.map((c) => `  ! ${c.path}: ${c.upstream} upstream but edited here (your version would stay)`),
    ...skipLines(t.skipped),
    ...(t.estimate ? [`estimate: ${t.estimate.summary}`] : []),
  ].join('\n');
}
