/**
 * `get`: the work from parsed flags and its rendering, with no oclif import, so the start-up fast
 * path (cli/fast.ts) answers it as the oclif command (commands/get.ts) does: a ghost reads more of
 * a hit this way, often several times a turn.
 */
import { TkomaError } from '../lib/errors.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import { getReference, type GetResult } from '../lib/topics/read.js';
import { resolveTopicId } from '../lib/topics/resolve.js';
import { assignDefined, readInput } from './output.js';

export interface GetFlags {
  json?: boolean;
  root?: string;
  input?: string;
  id?: string;
  topic?: string;
  path?: string;
  'start-line'?: number;
  'end-line'?: number;
  'max-chars'?: number;
}

export async function runGet(f: GetFlags): Promise<GetResult> {
  const raw = assignDefined(readInput(f.input), {
    id: f.id ?? undefined,
    topic: f.topic,
    path: f.path,
    start_line: f['start-line'],
    end_line: f['end-line'],
    max_chars: f['max-chars'],
  });
  const num = (k: string): number | undefined => {
    const v = raw[k];
    if (v === undefined || v === null) return undefined;
    if (!Number.isInteger(v) || (v as number) < 1) throw new TkomaError('INVALID_INPUT', `\`${k}\` must be a whole number ≥ 1`, { field: k });
    return v as number;
  };
  const str = (k: string): string | undefined => (typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  const topic = str('topic') ?? str('topic_id');
  const req = { id: str('id') ?? str('note_id'), topic, path: str('path'), start_line: num('start_line'), end_line: num('end_line'), max_chars: num('max_chars') };
  if (req.start_line && req.end_line && req.end_line < req.start_line) throw new TkomaError('INVALID_INPUT', 'end_line is before start_line');
  const root = requireRoot(resolveRootPath(f.root));
  // The same topic names `search` accepts: `--topic widgetron`, `--id widgetron/README.md`.
  if (req.topic) req.topic = await resolveTopicId(root, req.topic);
  else if (req.id && /^[^/#]+\//.test(req.id)) {
    const at = req.id.indexOf('/');
    req.id = `${await resolveTopicId(root, req.id.slice(0, at))}${req.id.slice(at)}`;
  }
  return getReference(root, req);
}

export function renderGet(r: GetResult): string {
  return r.content;
}
