/**
 * The `search` command without oclif: its flags as data, its work and its rendering. Both the
 * oclif command (commands/search.ts) and the start-up fast path (cli/fast.ts) run this, so the
 * answer is the same whichever way the process started.
 */
import { TkomaError } from '../lib/errors.js';
import type { ReferenceSearchResult, SearchMode } from '../lib/search/search.js';
import { envFlagOr } from '../lib/settings.js';
import { requireRootLazily, resolveRootPath } from '../lib/store/root-path.js';
import { assignDefined, readInput } from './output.js';
import { paint } from './render.js';

export { SEARCH_SPEC } from './spec.js';

export interface SearchFlags {
  json?: boolean;
  root?: string;
  input?: string;
  topic?: string;
  all: boolean;
  limit: number;
  'max-chars'?: number;
  explain: boolean;
  context?: string;
  mode?: string;
  embedder?: string;
  server: boolean;
}

/** Under TKOMA_REF_DEBUG, say on stderr why the answer is computed in this process. */
const debugFallback = (reason: string): void => {
  if (envFlagOr('debug', false)) process.stderr.write(`tkoma-ref: working in-process: ${reason}\n`);
};

export async function runSearch(f: SearchFlags, question: string | undefined): Promise<ReferenceSearchResult> {
  const raw = assignDefined(readInput(f.input), { question, topic: f.topic });
  const q = raw.question ?? raw.query;
  if (typeof q !== 'string' || !q.trim()) throw new TkomaError('INVALID_INPUT', 'a question is required', { field: 'question' });
  const topic = raw.topic ?? raw.topic_id;
  if (topic !== undefined && typeof topic !== 'string') throw new TkomaError('INVALID_INPUT', '`topic` must be a topic id', { field: 'topic' });
  if (topic && f.all) throw new TkomaError('INVALID_INPUT', 'give --topic or --all, not both');
  const root = await requireRootLazily(resolveRootPath(f.root));
  const req = {
    question: q,
    topic,
    all: f.all || raw.all === true,
    limit: typeof raw.limit === 'number' ? raw.limit : f.limit,
    maxChars: f['max-chars'],
    explain: f.explain,
    context: (f.context ?? raw.context) as string | number | undefined,
    embedderFlag: f.embedder,
    mode: (f.mode ?? raw.mode) as SearchMode | undefined,
  };
  // A running `serve`/`watch` answers from memory with the same JSON; otherwise work here.
  // --no-server does not load the client at all.
  const tryServer = f.server ? (await import('../lib/serve/client.js')).tryServer : null;
  const served = tryServer ? ((await tryServer(root, 'search', req, { onFallback: debugFallback })) as ReferenceSearchResult | undefined) : undefined;
  const result = served ?? (await (await import('../lib/search/search.js')).searchReferences(root, req));
  if (!f.json) {
    const line = vectorLine(result);
    if (line) process.stderr.write(`${line}\n`);
  }
  return result;
}

/** True when vectors are off because somebody chose so (embedder "none", lexical mode), not by failure. */
export function vectorsOffByChoice(reason: string | undefined): boolean {
  return /embedder "none"|lexical (mode|search) requested/.test(reason ?? '');
}

/** `wide`: hits widened by --context show their whole snippet, not its first 8 lines. */
export function renderSearch(r: ReferenceSearchResult, explain: boolean, wide = false): string {
  const out: string[] = [];
  if (r.topic?.status === 'obsolete') {
    // Obsolete topics are never searched: say so rather than "[stale] … No results."
    return [
      `${r.topic.title} (${r.topic.topic_id}) is obsolete: its files are not searched.`,
      `Search the other topics with --all, or bring it back with \`tkoma-ref topic update ${r.topic.topic_id} --status active\`.`,
    ].join('\n');
  }
  if (r.topic) out.push(paint('bold', `${r.topic.title} (${r.topic.topic_id})${r.topic.is_stale ? ' [stale]' : ''}`, process.stdout), '');
  if (r.results.length === 0) out.push('No results.');
  r.results.forEach((h, i) => {
    out.push(
      `${i + 1}. ${paint('cyan', `${h.topic_id}/${h.path}:${h.start_line}-${h.end_line}`, process.stdout)} ${h.role} ${h.score.toFixed(4)}${h.file_status !== 'active' ? ` [${h.file_status}]` : ''}`,
      `   ${h.symbol ?? h.title}`,
      ...h.snippet
        .split('\n')
        .slice(0, wide ? undefined : 8)
        .map((l) => `   │ ${l}`),
    );
    if (explain && h.explain) out.push(`   explain: ${JSON.stringify(h.explain)}`);
    out.push('');
  });
  return out.join('\n');
}

/** The one line people see about vectors (stderr), or null when there is nothing to say. */
export function vectorLine(r: Pick<ReferenceSearchResult, 'vector_search' | 'topics_searched'>): string | null {
  const v = r.vector_search;
  const parts: string[] = [];
  if (v.warning) parts.push(`${paint('yellow', 'Warning')}: ${v.warning}`);
  const where = r.topics_searched.length === 1 ? r.topics_searched[0] : `${r.topics_searched.length} topics`;
  if (v.chunk_vectors && v.coverage !== undefined && v.coverage < 1 && r.topics_searched.length > 0) {
    parts.push(`vectors: ${Math.floor(v.coverage * 100)}% of ${where}, ${v.building ? 'building' : 'pending (`tkoma-ref index embed` builds them)'}`);
  } else if (!v.available && v.chunk_vectors && !vectorsOffByChoice(v.reason)) {
    parts.push(`${paint('yellow', 'Warning')}: vector search unavailable (${v.reason}); lexical results only`);
  }
  return parts.length > 0 ? parts.join('\n') : null;
}
