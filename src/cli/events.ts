/**
 * Words for people: the index's sync reports and the events of `watch` / `serve`, one line each
 * (machines get the JSON under --json). Pure: no clock, no streams.
 */
import type { TopicSyncCounts } from '../lib/index/service.js';
import { plural } from './values.js';

/** A topic's sync counts; `repaired` is optional here because older servers may omit it. */
type Counts = Omit<TopicSyncCounts, 'repaired'> & { repaired?: string[] };

export interface SyncReportLike {
  topics: Record<string, Counts>;
  removed_topics: string[];
  embedder: string | null;
  embedded: number;
  vector_search?: { available: boolean; embedder?: string; reason?: string };
}

function changes(c: Counts): string {
  const parts = [c.added && `${c.added} added`, c.changed && `${c.changed} changed`, c.removed && `${c.removed} removed`].filter(Boolean);
  return parts.length ? parts.join(', ') : 'unchanged';
}

/** `index rebuild` for people: one line per topic, then the totals and the vectors. */
export function renderSyncReport(r: SyncReportLike, verb = 'Indexed'): string {
  const ids = Object.keys(r.topics).sort();
  const total = ids.reduce((a, id) => ({ files: a.files + r.topics[id]!.files, chunks: a.chunks + r.topics[id]!.chunks, vectors: a.vectors + r.topics[id]!.vectors }), { files: 0, chunks: 0, vectors: 0 });
  const lines = ids.map((id) => {
    const c = r.topics[id]!;
    const extra = [c.repaired?.length ? `repaired ${c.repaired.join(', ')}` : '', c.vector_error ? `vectors failed: ${c.vector_error}` : ''].filter(Boolean);
    return `  ${id}: ${plural(c.files, 'file')}, ${plural(c.chunks, 'chunk')}, ${plural(c.vectors, 'vector')}${extra.length ? ` (${extra.join('; ')})` : ''}`;
  });
  const head = ids.length
    ? `${verb} ${plural(ids.length, 'topic')}: ${plural(total.files, 'file')}, ${plural(total.chunks, 'chunk')}, ${plural(total.vectors, 'vector')}`
    : 'Nothing to index: no topics yet';
  const vs = r.vector_search;
  const tail = vs ? (vs.available ? `Vectors: ${vs.embedder}${r.embedded ? ` (${plural(r.embedded, 'text')} embedded, the rest from the cache)` : ''}` : `Vectors: off (${vs.reason ?? 'no embedder'}); search is lexical`) : '';
  return [head, ...lines, ...(r.removed_topics.length ? [`  removed from the index: ${r.removed_topics.join(', ')}`] : []), ...(tail ? [tail] : [])].join('\n');
}

export interface EventLike {
  type: string;
  [k: string]: unknown;
}

/** One line for one event of `watch` or `serve`; null when the event is not worth a line for people. */
export function renderEvent(e: EventLike): string | null {
  switch (e.type) {
    case 'ready':
      return 'watching for changes';
    case 'file':
      return `${String(e.event)} ${String(e.path).split(/[/\\]references[/\\]/).pop()}`;
    case 'sync': {
      const report = e.report as SyncReportLike;
      const ids = (e.topics as string[]) ?? Object.keys(report.topics);
      const parts = ids.map((id) => {
        const c = report.topics[id];
        return c ? `${id} ${changes(c)} (${plural(c.files, 'file')}, ${plural(c.chunks, 'chunk')})` : `${id} removed`;
      });
      return `synced ${parts.join('; ') || 'nothing'}`;
    }
    case 'reconcile': {
      const report = e.report as SyncReportLike;
      const ids = Object.keys(report.topics);
      const touched = ids.filter((id) => {
        const c = report.topics[id]!;
        return c.added || c.changed || c.removed || c.repaired?.length;
      });
      return touched.length || report.removed_topics.length
        ? `reconciled ${plural(ids.length, 'topic')}: ${[...touched.map((id) => `${id} ${changes(report.topics[id]!)}`), ...report.removed_topics.map((id) => `${id} removed`)].join('; ')}`
        : `reconciled ${plural(ids.length, 'topic')}: up to date`;
    }
    case 'serving':
      return `serving on ${String(e.socket)} (pid ${String(e.pid)}; ${e.watching ? 'watching the files' : 'not watching: files re-checked before each answer'}; embedder ${e.embedder ?? 'none'})`;
    case 'watch-degraded':
      return `✖ watching stopped (${String(e.reason)}): files are re-checked before each answer instead`;
    case 'behind':
      return `warning: ${String(e.message)}`;
    case 'serve-skipped':
      return `not serving searches: ${String(e.reason)}`;
    case 'error':
      return `✖ ${String(e.message ?? 'error')}${e.code ? ` [${String(e.code)}]` : ''}`;
    default:
      return `${e.type}`;
  }
}

/** "12:03:04 " from a date, for event lines. */
export function clock(d: Date): string {
  return d.toTimeString().slice(0, 8);
}
