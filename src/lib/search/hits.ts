/**
 * Fused hits shaped into answers. Work is done for the hits returned, not for every candidate:
 * texts are read in batches of about the hits still wanted (more only when duplicates were
 * folded), then the kept hits get their lines (the merged chunks' union, or widened by
 * `context`), a snippet of the lines matching the question, provenance and warnings.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { untrustedFor } from '../safety/warnings.js';
import { fileStatusOf, staleness, versionLabel } from '../store/model.js';
import { ManifestLookup } from '../store/manifest-lookup.js';
import { type FileRecord, MANIFEST_FILE } from '../store/topic-files.js';
import { ManifestLines, manifestLinesFile } from '../index/service.js';
import { type ChunkSpan, type HitContext, type LineRange, sectionRange, widenByLines } from './context.js';
import { ChunkCache } from './chunk-cache.js';
import { DuplicateIndex } from './duplicates.js';
import { FileMemo } from '../file-memo.js';
import type { FusedHit } from './fusion.js';
import type { ChunkRef, Opened } from './rank.js';
import type { ReferenceHit } from './search.js';
import type { LineWords } from './line-words.js';
import { type KnownWords, queryTerms, snippetOfLines } from './snippet.js';
import { isThin } from './thin.js';

// Repeat queries (serve) re-read a topic's manifest (one JSON line per file) only when it moved.
const manifests = new FileMemo<ManifestLookup>();

function manifestOf(dir: string): Promise<ManifestLookup> {
  return manifests.get(join(dir, MANIFEST_FILE), () => ManifestLookup.read(dir));
}

const lineIndexes = new FileMemo<ManifestLines | null>();

/** A hit's manifest record: from the lines the index points at, else from the whole manifest. */
async function recordOf(opened: Opened, path: string): Promise<FileRecord | undefined> {
  const { front, dir } = opened.topic;
  const lines = await lineIndexes.get(manifestLinesFile(opened.root, front.id), async () => ManifestLines.open(opened.root, front.id, dir));
  const rec = lines?.get(path);
  if (rec !== null && rec !== undefined) return rec;
  if (lines && rec === undefined) return undefined;
  opened.manifest ??= await manifestOf(dir);
  return opened.manifest.get(path);
}

interface Kept {
  h: FusedHit;
  ref: ChunkRef;
  also_in?: string[];
  /** Further hits of the same file folded into this one (MAX_HITS_PER_FILE). */
  more?: LineRange[];
  range: LineRange;
}

/**
 * Hits of one file shown separately; its further hits are folded into its first as
 * `more_in_file`, so one long page cannot fill the list (issue 26: a Dioxus guide page took 7 of
 * the first 10). Two leave room for a page's introduction and the section asked about.
 */
export const MAX_HITS_PER_FILE = 2;

/** Answers this process gave so far. */
let answers = 0;

/** Candidates past the hits still wanted that are read in the same batch (a duplicate or two). */
const BATCH_MARGIN = 5;

export async function toReferenceHits(
  fused: FusedHit[],
  refs: Map<string, ChunkRef>,
  question: string,
  opts: { limit: number; maxChars: number; explain: boolean; now: Date; context?: HitContext },
): Promise<ReferenceHit[]> {
  // Enough candidates that folding duplicates still leaves `limit` distinct hits.
  const cap = Math.min(fused.length, opts.limit * 4);
  const kept: Kept[] = [];
  // Chunks with nothing to read (thin.ts) wait until every chunk with content is placed.
  const thin: Kept[] = [];
  const perFile = new Map<string, Kept[]>();
  const dups = new Map<string, DuplicateIndex<Kept>>();
  const texts: Texts = new Map();
  for (let next = 0; kept.length < opts.limit && next < cap; ) {
    const batch = fused.slice(next, Math.min(cap, next + opts.limit - kept.length + BATCH_MARGIN));
    next += batch.length;
    await readTexts(batch.map((h) => refs.get(h.key)!), texts);
    for (const h of batch) {
      if (kept.length >= opts.limit) break;
      const ref = refs.get(h.key)!;
      const fp = chunkCache.fingerprint(ref.chunk.hash, texts.get(ref.chunk) ?? '');
      const topicId = ref.opened.topic.front.id;
      let index = dups.get(topicId);
      if (!index) dups.set(topicId, (index = new DuplicateIndex()));
      const twin = index.twinOf(fp);
      if (twin) {
        if (twin.h.path !== h.path) {
          twin.also_in ??= [];
          if (!twin.also_in.includes(h.path)) twin.also_in.push(h.path);
        }
        continue;
      }
      const k: Kept = { h, ref, range: { start: h.startLine, end: h.endLine } };
      const file = `${topicId}\u0000${h.path}`;
      const same = perFile.get(file) ?? [];
      if (same.length >= MAX_HITS_PER_FILE) {
        (same[0]!.more ??= []).push({ start: h.startLine, end: h.endLine });
        continue;
      }
      if (isThin(texts.get(ref.chunk) ?? '', h.path)) {
        thin.push(k);
        continue;
      }
      perFile.set(file, [...same, k]);
      kept.push(k);
      index.add(k, fp);
    }
  }
  for (const k of thin) if (kept.length < opts.limit) kept.push(k);
  if (opts.context !== undefined) await widen(kept, refs, opts.context);
  const shown = opts.context !== undefined ? foldOverlaps(kept) : kept;
  const terms = queryTerms(question);
  // A process past its first answer answers many (serve, mcp, watch): its chunks come back, so
  // their words are worth reading at first sight; a one-shot search only scans.
  const lines = await linesOf(shown, refs, texts, answers++ > 0);
  const out: ReferenceHit[] = [];
  // One topic's staleness is the same for every hit of this answer (a date parse each).
  const stale = new Map<object, boolean>();
  for (const k of shown) {
    const { h, ref } = k;
    const { front } = ref.opened.topic;
    const rec = await recordOf(ref.opened, h.path);
    const status = fileStatusOf(front, h.path);
    const reason = front.file_status?.find((f) => f.path === h.path)?.reason;
    const text = lines.get(k)!;
    const snip = snippetOfLines(text.lines, terms, opts.maxChars, text.words);
    const lineAt = (i: number): number => text.rows?.[i] ?? text.start + i;
    const endLine = lineAt(text.lines.length - 1);
    const hit: ReferenceHit = {
      id: `${front.id}/${h.path}`,
      topic_id: front.id,
      path: h.path,
      start_line: text.start,
      end_line: endLine,
      role: ref.chunk.role,
      score: Math.round(h.score * 10_000) / 10_000,
      title: ref.chunk.title,
      ...(ref.chunk.symbol ? { symbol: ref.chunk.symbol } : {}),
      snippet: snip.text,
      snippet_start_line: lineAt(snip.fromLine),
      snippet_end_line: lineAt(snip.toLine),
      source_url: rec?.source_url ?? null,
      ...(rec?.commit ? { commit: rec.commit } : {}),
      version: versionLabel(rec, front.fetched_at),
      fetched_at: rec?.fetched_at ?? front.fetched_at,
      is_stale: staleOnce(stale, front, opts.now),
      file_status: status,
      ...(status !== 'active' && reason ? { file_status_reason: reason } : {}),
      ...untrustedFor(rec, text.start, endLine),
      ...(k.also_in ? { also_in: k.also_in } : {}),
      ...(k.more ? { more_in_file: k.more.map((r) => ({ start_line: r.start, end_line: r.end })) } : {}),
      // A merge's markers in the hit's lines: the text is two versions at once, not the file.
      ...(text.lines.some((l) => CONFLICT_LINE.test(l)) ? { conflicted: true as const } : {}),
    };
    if (opts.explain) hit.explain = h.explain;
    out.push(hit);
  }
  return out;
}

const CONFLICT_LINE = /^(<<<<<<<|>>>>>>>) /;

function staleOnce(known: Map<object, boolean>, front: Parameters<typeof staleness>[0], now: Date): boolean {
  let yes = known.get(front);
  if (yes === undefined) known.set(front, (yes = staleness(front, now).is_stale));
  return yes;
}

/** The chunks a hit is made of: its best chunk and those merged into it, in line order. */
function membersOf(h: FusedHit, refs: Map<string, ChunkRef>): ChunkRef[] {
  if (!h.explain.merged?.length) return [refs.get(h.key)!];
  const keys = [h.key, ...(h.explain.merged ?? []).map((m) => m.key)];
  return keys.map((key) => refs.get(key)!).sort((a, b) => a.chunk.startLine - b.chunk.startLine);
}

/**
 * A hit's lines: the file's own lines for a widened hit (read from the topic folder), else its
 * chunks' texts joined. A chunk text that is not exactly its line range (or a missing file) falls
 * back to the best chunk's text and lines.
 */
async function linesOf(kept: readonly Kept[], refs: Map<string, ChunkRef>, texts: Texts, eager: boolean): Promise<Map<Kept, HitLines>> {
  const out = new Map<Kept, HitLines>();
  const files = new Map<string, Promise<string[] | null>>();
  const fileLines = (k: Kept): Promise<string[] | null> => {
    const abs = join(k.ref.opened.topic.dir, k.h.path);
    let p = files.get(abs);
    if (!p) files.set(abs, (p = readFile(abs, 'utf8').then((t) => t.split('\n'), () => null)));
    return p;
  };
  const members = new Map(kept.map((k) => [k, membersOf(k.h, refs)]));
  await readTexts([...members.values()].flat(), texts);
  const own = (r: ChunkRef): HitLines => {
    const text = texts.get(r.chunk) ?? '';
    const words = chunkCache.words(r.chunk.hash, text, eager);
    return words ? { start: r.chunk.startLine, lines: words.texts, words } : { start: r.chunk.startLine, lines: text.split('\n') };
  };
  for (const k of kept) {
    if (k.range.start < k.h.startLine || k.range.end > k.h.endLine) {
      const all = await fileLines(k);
      if (all && k.range.end <= all.length) {
        out.set(k, (await widenedWithIncludes(k, all, texts)) ?? { start: k.range.start, lines: all.slice(k.range.start - 1, k.range.end) });
        continue;
      }
    }
    const parts = members.get(k)!;
    if (parts.length === 1 && parts[0] === k.ref) {
      // One chunk: its own text, whether or not it is exactly its line range (the fallback).
      out.set(k, await pageRowsOf(k.ref, own(k.ref), () => fileLines(k)));
      continue;
    }
    const lines: string[] = [];
    const words: (LineWords | undefined)[] = [];
    let generation: number | undefined;
    let at = parts[0]!.chunk.startLine;
    let ok = true;
    for (const r of parts) {
      const t = own(r);
      if (t.lines.length !== r.chunk.endLine - r.chunk.startLine + 1 || r.chunk.startLine > at) {
        ok = false;
        break;
      }
      const from = at - r.chunk.startLine;
      const tw = t.words;
      const usable = tw !== undefined && (generation ??= tw.generation) === tw.generation;
      for (let i = from; i < t.lines.length; i++) {
        lines.push(t.lines[i]!);
        words.push(usable ? tw.lines[i] : undefined);
      }
      at = Math.max(at, r.chunk.endLine + 1);
    }
    out.set(k, ok ? { start: parts[0]!.chunk.startLine, lines, ...(generation !== undefined ? { words: { generation, lines: words } } : {}) } : await pageRowsOf(k.ref, own(k.ref), () => fileLines(k)));
  }
  return out;
}

/**
 * A widened hit on a page whose chunks resolved includes (issue 26): the page's rows in the range,
 * each directive's row replaced by the code its chunk holds, with the page's line numbers. Null
 * when no chunk in the range grew (the file's own lines are the answer) or one cannot be placed.
 */
async function widenedWithIncludes(k: Kept, page: readonly string[], texts: Texts): Promise<HitLines | null> {
  const { index } = k.ref.opened;
  const { start, end } = k.range;
  const inRange: ChunkRef[] = [];
  const count = index.head.files.chunkCountOf(k.h.path);
  for (let i = 0; i < count; i++) {
    const c = index.chunks.get(`${k.h.path}#${i}`);
    if (c && c.endLine >= start && c.startLine <= end) inRange.push({ opened: k.ref.opened, chunk: c });
  }
  await readTexts(inRange, texts);
  const ownRows = (r: ChunkRef): boolean => {
    const text = (texts.get(r.chunk) ?? '').split('\n');
    return text.length === r.chunk.endLine - r.chunk.startLine + 1 && text.every((l, i) => l === page[r.chunk.startLine - 1 + i] || l === page[r.chunk.startLine - 1 + i]?.trimEnd());
  };
  // A resolved include may take exactly the directive's one row: compare the lines, not their count.
  const grown = inRange.filter((r) => !ownRows(r));
  if (grown.length === 0) return null;
  const { alignToPage } = await import('../chunking/includes.js');
  // Each page row's lines: a grown chunk's rows hold what it shows, the other rows the page's own.
  const byRow = new Map<number, string[]>();
  for (const r of grown) {
    const text = texts.get(r.chunk)!.split('\n');
    const map = alignToPage(page.slice(r.chunk.startLine - 1, r.chunk.endLine), text);
    if (!map) return null;
    const mine = new Map<number, string[]>();
    text.forEach((line, i) => {
      const row = r.chunk.startLine + map[i]!;
      const held = mine.get(row);
      if (held) held.push(line);
      else mine.set(row, [line]);
    });
    // Chunks that overlap: the first one's reading of a row stands.
    for (const [row, held] of mine) if (!byRow.has(row)) byRow.set(row, held);
  }
  const lines: string[] = [];
  const rows: number[] = [];
  for (let row = start; row <= end; row++) {
    for (const line of byRow.get(row) ?? [page[row - 1]!]) {
      lines.push(line);
      rows.push(row);
    }
  }
  return { start, lines, rows };
}

/**
 * A chunk whose text holds more lines than its range (a page's resolved includes) keeps the
 * page's line numbers: each line is mapped to the page row it stands for (the directive's row for
 * included code), by the page's own lines; rows past the range are clamped when that fails.
 */
async function pageRowsOf(r: ChunkRef, t: HitLines, page: () => Promise<string[] | null>): Promise<HitLines> {
  const { startLine, endLine } = r.chunk;
  if (t.lines.length <= endLine - startLine + 1) return t;
  const all = await page();
  const { alignToPage } = await import('../chunking/includes.js');
  const map = all && endLine <= all.length ? alignToPage(all.slice(startLine - 1, endLine), t.lines) : null;
  const rows = t.lines.map((_, i) => (map ? startLine + map[i]! : Math.min(startLine + i, endLine)));
  return { ...t, rows };
}

/** Widens each kept hit's range by `context` (see context.ts). */
async function widen(kept: Kept[], refs: Map<string, ChunkRef>, context: HitContext): Promise<void> {
  for (const k of kept) {
    const { index } = k.ref.opened;
    const count = index.head.files.chunkCountOf(k.h.path);
    const chunks: ChunkSpan[] = [];
    for (let i = 0; i < count; i++) {
      const c = index.chunks.get(`${k.h.path}#${i}`);
      if (c) chunks.push(c);
    }
    if (chunks.length === 0) continue;
    const lineCount = chunks[chunks.length - 1]!.endLine;
    if (typeof context === 'number') {
      k.range = widenByLines(k.range, context, lineCount);
      continue;
    }
    const members = membersOf(k.h, refs).map((r) => chunks.findIndex((c) => c.startLine === r.chunk.startLine && c.endLine === r.chunk.endLine));
    if (members.some((i) => i < 0)) continue;
    k.range = sectionRange(chunks, Math.min(...members), Math.max(...members));
  }
}

/** Widened hits of one file that now overlap or touch fold into the better (earlier) one. */
export function foldOverlaps<T extends { h: { topicId: string; path: string }; range: LineRange }>(kept: readonly T[]): T[] {
  const out: T[] = [];
  for (const k of kept) {
    const into = out.find((o) => o.h.topicId === k.h.topicId && o.h.path === k.h.path && k.range.start <= o.range.end + 1 && k.range.end >= o.range.start - 1);
    if (into) into.range = { start: Math.min(into.range.start, k.range.start), end: Math.max(into.range.end, k.range.end) };
    else out.push(k);
  }
  return out;
}

type Texts = Map<ChunkRef['chunk'], string>;

/** A hit's lines from `start` on (not to be changed: they may be the chunk cache's), with their words when it holds them. */
interface HitLines {
  start: number;
  lines: readonly string[];
  /** The page line of each of `lines` when they are not consecutive (included code): see pageRowsOf. */
  rows?: number[];
  words?: KnownWords;
}

/** Texts (and fingerprints) of the chunks answers showed lately: a warm process reads each once. */
const chunkCache = new ChunkCache();

/** Adds the texts of chunks not in `texts` yet: from the cache, else read from their segments. */
async function readTexts(refs: readonly ChunkRef[], texts: Texts): Promise<void> {
  const byTopic = new Map<Opened, Set<ChunkRef['chunk']>>();
  for (const r of refs) {
    if (texts.has(r.chunk)) continue;
    const held = chunkCache.text(r.chunk.hash);
    if (held !== undefined) {
      texts.set(r.chunk, held);
      continue;
    }
    const set = byTopic.get(r.opened);
    if (set) set.add(r.chunk);
    else byTopic.set(r.opened, new Set([r.chunk]));
  }
  if (byTopic.size === 0) return;
  const { chunkTexts } = await import('../index/service.js');
  for (const [opened, set] of byTopic) {
    const chunks = [...set];
    const got = chunkTexts(opened.root, opened.topic.front.id, chunks);
    for (const c of chunks) {
      const text = got.get(c.id) ?? '';
      texts.set(c, text);
      chunkCache.put(c.hash, text);
    }
  }
}
