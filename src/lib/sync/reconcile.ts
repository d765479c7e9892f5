/**
 * After git merged a sync's two sides (drivers and all), one rule makes a topic fetched again on
 * both machines consistent: the newer fetch (topic.md `fetched_at`) is the topic's upstream
 * state, so its manifest, skipped list, `files`/`sources`/`fetched_at` and the bytes of every file
 * the other side's fetch wrote come from it; what either side wrote by hand (tags, body, file
 * status, a hand-edited file the other side's fetch did not touch) stays merged as git merged it.
 * A topic deleted on one side and changed on the other comes back whole from the side that
 * changed it, its topic.md left unmerged for the operator to keep (`git add`) or delete (`git rm -r`).
 */
import { parseTopicMd, serializeTopicMd } from '../store/frontmatter.js';
import { parsePathRecord } from '../store/path-records.js';
import { git, gitSync } from '../root-git.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newestFetch } from './merge-records.js';
import { newerFetch } from './merge-topic.js';

/** A file's text at a commit, or null when it is not there. */
export function showFile(root: string, commit: string, path: string): string | null {
  try {
    return gitSync(root, ['cat-file', 'blob', `${commit}:${path}`]);
  } catch {
    return null;
  }
}

function blobId(root: string, commit: string, path: string): string | null {
  try {
    return gitSync(root, ['rev-parse', '--verify', '-q', `${commit}:${path}`]).trim() || null;
  } catch {
    return null;
  }
}

function records(text: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of (text ?? '').split('\n')) {
    const rec = parsePathRecord<{ path: string }>(line);
    if (rec) out.set(rec.path, JSON.stringify(rec, Object.keys(rec).sort()));
  }
  return out;
}

/** Changed paths per topic between two commits. */
function changedByTopic(root: string, from: string, to: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of gitSync(root, ['diff', '--no-renames', '--name-only', '-z', from, to, '--', 'references']).split('\0')) {
    const m = /^references\/([^/]+)\/(.+)$/.exec(p);
    if (!m) continue;
    if (!out.has(m[1]!)) out.set(m[1]!, new Set());
    out.get(m[1]!)!.add(m[2]!);
  }
  return out;
}

export interface Reconciled {
  /** Topics fetched again on both sides, now one consistent state (the newer fetch's). */
  converged: string[];
  /** Topics deleted on one side and changed on the other: restored whole, topic.md left unmerged. */
  deleted_and_changed: string[];
}

export async function reconcileMerge(root: string, base: string, ours: string, theirs: string, unmerged: Set<string>): Promise<Reconciled> {
  const out: Reconciled = { converged: [], deleted_and_changed: [] };
  const mine = changedByTopic(root, base, ours);
  const other = changedByTopic(root, base, theirs);
  for (const id of [...mine.keys()].filter((k) => other.has(k)).sort()) {
    const dir = `references/${id}`;
    const note = `${dir}/topic.md`;
    const [nb, no, nt] = [blobId(root, base, note), blobId(root, ours, note), blobId(root, theirs, note)];
    if (nb && (!no || !nt) && (no || nt)) {
      await keepChangedSide(root, dir, note, nb, no ? { commit: ours, blob: no, stage: 2 } : { commit: theirs, blob: nt!, stage: 3 });
      out.deleted_and_changed.push(id);
      continue;
    }
    const manifest = `${dir}/.tkoma-files.jsonl`;
    if (!no || !nt || !mine.get(id)!.has('.tkoma-files.jsonl') || !other.get(id)!.has('.tkoma-files.jsonl')) continue;
    let winner: string;
    let loser: string;
    try {
      const fo = parseTopicMd(showFile(root, ours, note)!, note).front;
      const ft = parseTopicMd(showFile(root, theirs, note)!, note).front;
      let newer: number = newerFetch(fo, ft);
      if (newer === 0) {
        const [mo, mt] = [showFile(root, ours, manifest), showFile(root, theirs, manifest)].map((t) => (t ?? '').split('\n').map((l) => parsePathRecord<{ path: string; fetched_at?: unknown }>(l)).filter((r) => r !== null));
        newer = Math.sign(newestFetch(mo!) - newestFetch(mt!));
      }
      if (newer === 0) continue;
      [winner, loser] = newer > 0 ? [ours, theirs] : [theirs, ours];
      await takeFetch(root, id, base, winner, loser, unmerged, parseTopicMd(showFile(root, winner, note)!, note).front);
      out.converged.push(id);
    } catch {
      // A note that does not parse on a side: git's merge (and its conflicts) stand.
    }
  }
  return out;
}

async function keepChangedSide(root: string, dir: string, note: string, baseBlob: string, kept: { commit: string; blob: string; stage: 2 | 3 }): Promise<void> {
  await git(root, ['checkout', kept.commit, '--', dir]);
  const info = `0 ${'0'.repeat(40)}\t${note}\n100644 ${baseBlob} 1\t${note}\n100644 ${kept.blob} ${kept.stage}\t${note}\n`;
  gitSync(root, ['update-index', '--index-info'], info);
}

async function takeFetch(root: string, id: string, base: string, winner: string, loser: string, unmerged: Set<string>, front: ReturnType<typeof parseTopicMd>['front']): Promise<void> {
  const dir = `references/${id}`;
  const manifest = `${dir}/.tkoma-files.jsonl`;
  const skipped = `${dir}/.tkoma-skipped.jsonl`;
  const mw = records(showFile(root, winner, manifest));
  const ml = records(showFile(root, loser, manifest));
  const mb = records(showFile(root, base, manifest));
  const take: string[] = [manifest];
  const drop: string[] = [];
  // The loser's fetch wrote these bytes (its record moved): the winner's fetch replaces them.
  for (const p of mw.keys()) if (ml.get(p) !== mb.get(p)) take.push(`${dir}/${p}`);
  for (const p of ml.keys()) if (!mw.has(p) && ml.get(p) !== mb.get(p)) drop.push(`${dir}/${p}`);
  if (showFile(root, winner, skipped) !== null) take.push(skipped);
  else drop.push(skipped);
  for (let i = 0; i < take.length; i += 200) await git(root, ['checkout', winner, '--', ...take.slice(i, i + 200)]);
  const tracked = new Set(gitSync(root, ['ls-files', '-z', '--', ...drop]).split('\0').filter(Boolean));
  const gone = drop.filter((p) => tracked.has(p));
  for (let i = 0; i < gone.length; i += 200) await git(root, ['rm', '-q', '-f', '--', ...gone.slice(i, i + 200)]);
  const note = `${dir}/topic.md`;
  const file = join(root, note);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  let parsed;
  try {
    parsed = parseTopicMd(text, note);
  } catch {
    return; // markers in the front matter: the operator resolves it
  }
  const merged = { ...parsed.front, fetched_at: front.fetched_at, files: [...front.files], sources: front.sources.map((s) => ({ ...s })) };
  const next = serializeTopicMd(merged, parsed.body);
  if (next !== text) writeFileSync(file, next);
  if (!unmerged.has(note)) await git(root, ['add', '--', note]);
}
