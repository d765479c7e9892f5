/** Topic mutations that fetch nothing: update, file status, delete. Each is one commit. */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { relative } from 'node:path';

import { TkomaError } from '../errors.js';
import { type CommitAuthor, commitAll, discardChanges } from '../kgit.js';
import { withFileWarnings } from '../store/model.js';
import { readTopic, resolveTopicPath, TOPIC_FILE, topicDir, writeTopic } from '../store/topics.js';
import type { FileStatusRequest, UpdateRequest } from './request.js';

/** Runs `write`, then commits the topic folder; on any failure the folder is restored from git. */
async function commitTopicChange(root: string, id: string, message: string, author: CommitAuthor, write: () => Promise<void>): Promise<string | null> {
  const rel = relative(root, topicDir(root, id));
  try {
    await write();
    return await commitAll(root, message, author, [rel]);
  } catch (err) {
    await discardChanges(root, [rel]);
    throw err;
  }
}

export interface UpdateResult {
  topic_id: string;
  changed: string[];
  commit: string | null;
  status: string;
  max_age_days: number;
  tags: string[];
}

export async function updateTopic(root: string, req: UpdateRequest, author: CommitAuthor): Promise<UpdateResult> {
  const { front, body, dir } = await readTopic(root, req.topic_id);
  const changed: string[] = [];
  const describe: string[] = [];
  if (req.status !== undefined && req.status !== front.status) {
    describe.push(`status ${front.status} → ${req.status}`);
    front.status = req.status;
    changed.push('status');
  }
  if (req.max_age_days !== undefined && req.max_age_days !== front.max_age_days) {
    describe.push(`max_age_days ${front.max_age_days} → ${req.max_age_days}`);
    front.max_age_days = req.max_age_days;
    changed.push('max_age_days');
  }
  if (req.trust_score !== undefined && req.trust_score !== front.trust_score) {
    describe.push(`trust_score ${front.trust_score} → ${req.trust_score}`);
    front.trust_score = req.trust_score;
    changed.push('trust_score');
  }
  if (req.tags !== undefined && req.tags.join('\0') !== front.tags.join('\0')) {
    describe.push(`tags [${req.tags.join(', ')}]`);
    front.tags = req.tags;
    changed.push('tags');
  }
  if (req.title !== undefined && req.title !== front.title) {
    describe.push(`title "${req.title}"`);
    front.title = req.title;
    changed.push('title');
  }
  let newBody = body;
  if (req.body !== undefined) {
    // A rewritten body keeps the file warnings the tool maintains.
    newBody = withFileWarnings(req.body, front.file_status ?? []);
    if (newBody.trim() !== body.trim()) {
      describe.push('body');
      changed.push('body');
    }
  }
  let commit: string | null = null;
  if (changed.length > 0) {
    commit = await commitTopicChange(root, front.id, `update topic ${front.id}: ${describe.join(', ')}`, author, () => writeTopic(dir, front, newBody));
  }
  return { topic_id: front.id, changed, commit, status: front.status, max_age_days: front.max_age_days, tags: front.tags };
}

export interface FileStatusResult {
  topic_id: string;
  path: string;
  status: string;
  reason?: string;
  commit: string | null;
}

export async function setFileStatus(root: string, req: FileStatusRequest, author: CommitAuthor): Promise<FileStatusResult> {
  const { front, body, dir } = await readTopic(root, req.topic_id);
  const { rel, abs } = resolveTopicPath(dir, req.path);
  if (rel === TOPIC_FILE || !existsSync(abs) || !front.files.includes(rel)) {
    throw new TkomaError('FILE_NOT_FOUND', `topic "${front.id}" has no file "${rel}"`, { topic_id: front.id, path: rel });
  }
  const entries = (front.file_status ?? []).filter((e) => e.path !== rel);
  const previous = front.file_status?.find((e) => e.path === rel);
  if (req.status !== 'active') entries.push({ path: rel, status: req.status, ...(req.reason ? { reason: req.reason } : {}), updated_at: new Date().toISOString() });
  entries.sort((a, b) => (a.path < b.path ? -1 : 1));
  const unchanged = (previous?.status ?? 'active') === req.status && (req.status === 'active' || previous?.reason === req.reason);
  let commit: string | null = null;
  if (!unchanged) {
    front.file_status = entries.length ? entries : undefined;
    const message = `mark ${rel} in ${front.id} ${req.status}${req.reason ? `: ${req.reason}` : ''}`;
    commit = await commitTopicChange(root, front.id, message, author, () => writeTopic(dir, front, withFileWarnings(body, entries)));
  }
  return { topic_id: front.id, path: rel, status: req.status, ...(req.reason ? { reason: req.reason } : {}), commit };
}

export interface DeleteResult {
  topic_id: string;
  deleted: true;
  file_count: number;
  commit: string | null;
}

export async function deleteTopic(root: string, id: string, author: CommitAuthor): Promise<DeleteResult> {
  const { front, dir } = await readTopic(root, id).catch(async (err) => {
    // A hand-broken topic.md must still be deletable: fall back to the folder alone.
    if (err instanceof TkomaError && err.code === 'MALFORMED_TOPIC') return { front: null, dir: topicDir(root, id) };
    throw err;
  });
  const fileCount = front?.files.length ?? 0;
  const commit = await commitTopicChange(root, id, `delete topic ${id}${front ? `: ${fileCount} files (${front.title})` : ''}`, author, () =>
    rm(dir, { recursive: true, force: true }),
  );
  try {
    const { removeTopicIndex } = await import('../index/service.js');
    await removeTopicIndex(root, id);
  } catch {
    // The index is derived: the next sync drops entries of topics that no longer exist.
  }
  return { topic_id: id, deleted: true, file_count: fileCount, commit };
}
