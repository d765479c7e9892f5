/**
 * Topic mutations that fetch nothing: update, file status, delete. Each is one commit, made under
 * the write lock from the topic as it is at that moment (runMutation), so parallel callers never
 * overwrite each other and a crash never leaves half a change.
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';

import { TkomaError } from '../errors.js';
import type { CommitAuthor } from '../root-git.js';
import { runMutation, stagingPath } from '../mutation.js';
import { fileCountOf } from '../store/frontmatter.js';
import { type TopicFront, withFileWarnings } from '../store/model.js';
import { type FileRecord, readManifest, readTopic, resolveTopicPath, TOPIC_FILE, topicDir, writeTopic } from '../store/topic-files.js';
import { withUntrustedWarnings } from '../safety/warnings.js';
import type { FileStatusRequest, UpdateRequest } from './request.js';

export interface UpdateResult {
  topic_id: string;
  changed: string[];
  commit: string | null;
  status: string;
  max_age_days: number;
  tags: string[];
}

export async function updateTopic(root: string, req: UpdateRequest, author: CommitAuthor): Promise<UpdateResult> {
  const { value: v, commit } = await runMutation(root, { op: 'update', topicId: req.topic_id, author }, async (m) => {
    const { front, body, dir } = await readTopic(root, req.topic_id);
    // A rewritten body keeps the untrusted-content lines too, so they need the file records.
    const flagged = req.body !== undefined ? await readManifest(dir) : [];
    const { message, newBody, result } = planUpdate(req, front, body, flagged);
    if (message !== null) {
      m.willWrite([`references/${req.topic_id}/${TOPIC_FILE}`]);
      await writeTopic(dir, front, newBody);
    }
    return { message, value: result };
  });
  return { topic_id: v.topic_id, changed: v.changed, commit, status: v.status, max_age_days: v.max_age_days, tags: v.tags };
}

/** Applies the request to `front` (in place); pure apart from that. */
function planUpdate(req: UpdateRequest, front: TopicFront, body: string, flagged: FileRecord[]): { message: string | null; newBody: string; result: Omit<UpdateResult, 'commit'> } {
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
    // A rewritten body keeps the warnings the tool maintains (file status, untrusted content).
    newBody = withUntrustedWarnings(withFileWarnings(req.body, front.file_status ?? []), flagged);
    if (newBody.trim() !== body.trim()) {
      describe.push('body');
      changed.push('body');
    }
  }
  return {
    message: changed.length > 0 ? `update topic ${front.id}: ${describe.join(', ')}` : null,
    newBody,
    result: { topic_id: front.id, changed, status: front.status, max_age_days: front.max_age_days, tags: front.tags },
  };
}

export interface FileStatusResult {
  topic_id: string;
  path: string;
  status: string;
  reason?: string;
  commit: string | null;
}

export async function setFileStatus(root: string, req: FileStatusRequest, author: CommitAuthor): Promise<FileStatusResult> {
  const { value: v, commit } = await runMutation(root, { op: 'file-status', topicId: req.topic_id, author }, async (m) => {
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
    let message: string | null = null;
    if (!unchanged) {
      front.file_status = entries.length ? entries : undefined;
      message = `mark ${rel} in ${front.id} ${req.status}${req.reason ? `: ${req.reason}` : ''}`;
      m.willWrite([`references/${req.topic_id}/${TOPIC_FILE}`]);
      await writeTopic(dir, front, withFileWarnings(body, entries));
    }
    return { message, value: { topic_id: front.id, path: rel } };
  });
  return { topic_id: v.topic_id, path: v.path, status: req.status, ...(req.reason ? { reason: req.reason } : {}), commit };
}

export interface DeleteResult {
  topic_id: string;
  deleted: true;
  file_count: number;
  commit: string | null;
}

export async function deleteTopic(root: string, id: string, author: CommitAuthor): Promise<DeleteResult> {
  const { value: v, commit } = await runMutation(root, { op: 'delete', topicId: id, author }, async (m) => {
    const { front, dir } = await readTopic(root, id).catch(async (err) => {
      // A hand-broken topic.md must still be deletable: fall back to the folder alone.
      if (err instanceof TkomaError && err.code === 'MALFORMED_TOPIC') return { front: null, dir: topicDir(root, id) };
      throw err;
    });
    const fileCount = front ? fileCountOf(front) : 0;
    // One rename takes the whole folder out of sight (journaled first, so a crash puts it back);
    // runMutation deletes it for good after the commit.
    const aside = stagingPath(root, `deleted-${id}`);
    m.setAside(aside);
    await rename(dir, aside);
    return { message: `delete topic ${id}${front ? `: ${fileCount} file${fileCount === 1 ? '' : 's'} (${front.title})` : ''}`, value: fileCount };
  });
  try {
    const { removeTopicIndex } = await import('../index/service.js');
    await removeTopicIndex(root, id);
  } catch {
    // The index is derived: the next sync drops entries of topics that no longer exist.
  }
  return { topic_id: id, deleted: true, file_count: v, commit };
}
