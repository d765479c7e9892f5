/**
 * Fused hits shaped into answers: texts read for the hits only, duplicates folded, snippets cut,
 * file provenance (manifest) and warnings attached.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

import { untrustedFor } from '../safety/warnings.js';
import { fileStatusOf, staleness } from '../store/model.js';
import { type FileRecord, MANIFEST_FILE, readManifest } from '../store/topics.js';
import { type Fingerprint, fingerprint, sameText } from './duplicates.js';
import type { FusedHit } from './fusion.js';
import type { ChunkRef, Opened } from './rank.js';
import type { ReferenceHit } from './search.js';
import { makeSnippet, queryTerms } from './snippet.js';

// Repeat queries (serve) re-read a topic's manifest (one JSON line per file) only when it moved.
const manifests = new Map<string, { ino: number; size: number; mtimeMs: number; map: Map<string, FileRecord> }>();

async function manifestOf(dir: string): Promise<Map<string, FileRecord>> {
  const file = join(dir, MANIFEST_FILE);
  const st = await stat(file).catch(() => null);
  const known = manifests.get(file);
  if (st && known && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.map;
  manifests.delete(file);
  const map = new Map((await readManifest(dir)).map((r) => [r.path, r]));
  if (st) manifests.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, map });
  return map;
}

export async function toReferenceHits(
  fused: FusedHit[],
  refs: Map<string, ChunkRef>,
  question: string,
  opts: { limit: number; maxChars: number; explain: boolean; now: Date },
): Promise<ReferenceHit[]> {
  const terms = queryTerms(question);
  const out: ReferenceHit[] = [];
  // Enough candidates that folding duplicates still leaves `limit` distinct hits.
  const top = fused.slice(0, opts.limit * 3);
  const texts = await textsOfHits(top.map((h) => refs.get(h.key)!));
  const seen: Array<{ hit: ReferenceHit; fp: Fingerprint }> = [];
  for (const h of top) {
    if (out.length >= opts.limit) break;
    const ref = refs.get(h.key)!;
    const fp = fingerprint(texts.get(ref)!);
    const twin = seen.find((s) => s.hit.topic_id === ref.opened.topic.front.id && sameText(s.fp, fp));
    if (twin) {
      if (twin.hit.path !== h.path) {
        twin.hit.also_in ??= [];
        if (!twin.hit.also_in.includes(h.path)) twin.hit.also_in.push(h.path);
      }
      continue;
    }
    const { front, dir } = ref.opened.topic;
    ref.opened.manifest ??= await manifestOf(dir);
    const rec = ref.opened.manifest.get(h.path);
    const status = fileStatusOf(front, h.path);
    const reason = front.file_status?.find((f) => f.path === h.path)?.reason;
    const hit: ReferenceHit = {
      id: `${front.id}/${h.path}`,
      topic_id: front.id,
      path: h.path,
      start_line: h.startLine,
      end_line: h.endLine,
      role: ref.chunk.role,
      score: Math.round(h.score * 10_000) / 10_000,
      title: ref.chunk.title,
      ...(ref.chunk.symbol ? { symbol: ref.chunk.symbol } : {}),
      snippet: makeSnippet(texts.get(ref)!, terms, opts.maxChars).text,
      source_url: rec?.source_url ?? null,
      ...(rec?.commit ? { commit: rec.commit } : {}),
      fetched_at: rec?.fetched_at ?? front.fetched_at,
      is_stale: staleness(front, opts.now).is_stale,
      file_status: status,
      ...(status !== 'active' && reason ? { file_status_reason: reason } : {}),
      ...untrustedFor(rec, h.startLine, h.endLine),
    };
    if (opts.explain) hit.explain = h.explain;
    out.push(hit);
    seen.push({ hit, fp });
  }
  return out;
}

/** The texts of the hits' chunks, read from their segments (a few small reads per query). */
async function textsOfHits(refs: readonly ChunkRef[]): Promise<Map<ChunkRef, string>> {
  const { chunkTexts } = await import('../index/segments.js');
  const out = new Map<ChunkRef, string>();
  const byTopic = new Map<Opened, ChunkRef[]>();
  for (const r of refs) byTopic.set(r.opened, [...(byTopic.get(r.opened) ?? []), r]);
  for (const [opened, list] of byTopic) {
    const texts = await chunkTexts(opened.root, opened.topic.front.id, list.map((r) => r.chunk));
    for (const r of list) out.set(r, texts.get(r.chunk.id) ?? '');
  }
  return out;
}
