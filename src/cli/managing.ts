/**
 * `topic update`, `delete` and `file status`: the work from parsed flags and its rendering, with
 * no oclif import, so the start-up fast path (cli/fast.ts) runs them as the oclif commands
 * (commands/topic/update.ts, delete.ts, file/status.ts) do. Ghosts call these many times a turn,
 * and oclif's start was about half of a small change's CPU.
 */
import { TkomaError } from '../lib/errors.js';
import { readTopic } from '../lib/store/topic-files.js';
import { requireRoot, resolveRootPath } from '../lib/store/root.js';
import { type DeleteResult, deleteTopic, type FileStatusResult, setFileStatus, updateTopic, type UpdateResult } from '../lib/topics/manage.js';
import { flagNames, validateFileStatusRequest, validateTopicIdField, validateUpdateRequest } from '../lib/topics/request.js';
import { resolveTopicId } from '../lib/topics/resolve.js';
import { countOf } from '../lib/topics/summary.js';
import { assignDefined, readInput } from './output.js';

interface Common {
  json?: boolean;
  root?: string;
  ghost?: string;
  model?: string;
}

export interface TopicUpdateFlags extends Common {
  input?: string;
  status?: string;
  'max-age-days'?: number;
  'trust-score'?: number;
  body?: string;
  title?: string;
  tag?: string[];
}

export async function runTopicUpdate(f: TopicUpdateFlags, id: string | undefined): Promise<UpdateResult> {
  const raw = assignDefined(readInput(f.input), {
    topic_id: id,
    status: f.status,
    max_age_days: f['max-age-days'],
    trust_score: f['trust-score'],
    body: f.body,
    title: f.title,
    tags: f.tag,
  });
  const names = flagNames(f as Record<string, unknown>, { status: 'status', max_age_days: 'max-age-days', trust_score: 'trust-score', body: 'body', title: 'title', tags: 'tag' });
  const root = requireRoot(resolveRootPath(f.root));
  if (typeof raw.topic_id === 'string') raw.topic_id = await resolveTopicId(root, raw.topic_id);
  return updateTopic(root, validateUpdateRequest(raw, names), { ghost: f.ghost, model: f.model });
}

export function renderTopicUpdate(r: UpdateResult): string {
  return r.changed.length ? `Updated ${r.topic_id}: ${r.changed.join(', ')} (commit ${r.commit?.slice(0, 7)})` : `Nothing changed in ${r.topic_id}`;
}

export interface DeleteFlags extends Common {
  yes: boolean;
}

/** What delete asks of where it runs: a terminal to confirm on. */
export interface AskIo {
  canAsk(): boolean;
  confirm(question: string): Promise<boolean>;
}

export async function runDelete(f: DeleteFlags, ref: string, io: AskIo): Promise<DeleteResult> {
  const root = requireRoot(resolveRootPath(f.root));
  const id = validateTopicIdField(await resolveTopicId(root, ref));
  if (!f.yes) {
    if (!io.canAsk()) {
      throw new TkomaError('CONFIRMATION_REQUIRED', `deleting ${id} needs --yes (no terminal to ask on)`, { topic_id: id });
    }
    const { front } = await readTopic(root, id);
    if (!(await io.confirm(`Delete topic ${id} (${front.title}, ${countOf(front.files.length, 'file')})?`))) {
      throw new TkomaError('DECLINED', `not deleted: ${id} is unchanged`, { topic_id: id });
    }
  }
  return deleteTopic(root, id, { ghost: f.ghost, model: f.model });
}

export function renderDelete(r: DeleteResult): string {
  return `Deleted ${r.topic_id} (${countOf(r.file_count, 'file')}, commit ${r.commit?.slice(0, 7)})`;
}

export interface FileStatusFlags extends Common {
  input?: string;
  topic?: string;
  path?: string;
  status?: string;
  reason?: string;
}

export async function runFileStatus(f: FileStatusFlags): Promise<FileStatusResult> {
  const raw = assignDefined(readInput(f.input), { topic_id: f.topic, path: f.path, status: f.status, reason: f.reason });
  const names = flagNames(f as Record<string, unknown>, { topic_id: 'topic', path: 'path', status: 'status', reason: 'reason' });
  const root = requireRoot(resolveRootPath(f.root));
  if (typeof raw.topic_id === 'string') raw.topic_id = await resolveTopicId(root, raw.topic_id);
  return setFileStatus(root, validateFileStatusRequest(raw, names), { ghost: f.ghost, model: f.model });
}

export function renderFileStatus(r: FileStatusResult): string {
  return r.commit ? `Marked ${r.topic_id}/${r.path} ${r.status} (commit ${r.commit.slice(0, 7)})` : `${r.topic_id}/${r.path} is already ${r.status}`;
}
