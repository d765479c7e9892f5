/**
 * Chunk texts, their duplicate fingerprints and their lines' words (line-words.ts), kept between answers of one process (a warm
 * `serve`/`mcp` answers thousands). Keyed by the text's sha256, which the chunk record carries as
 * `hash`: an entry is right whichever segment, topic or root asks for it, so a sync, compaction
 * or hand edit never makes one wrong, and nothing needs invalidating when a head changes; texts
 * no longer asked for age out. Bounded by bytes, least recently used first out (nearly: a text
 * read since it was last placed gets one more turn, see grow).
 */
import { type Fingerprint, fingerprint } from './duplicates.js';
import { type LineWords, lineWords, startAgainWhenFull, termGeneration } from './line-words.js';

/**
 * About every chunk of a SciFact-sized topic (7.5k chunks, 8 MB of text) with its fingerprint; with
 * their words too, the chunks of a few hundred 100-hit answers. 48 MB kept all the words as well
 * but cost the serve process 55 MB more RSS (the heap grows past what is counted here).
 */
export const CHUNK_CACHE_BYTES = 32 * 2 ** 20;

/** A Map entry, its key and the object around the text: roughly what V8 spends beside the text. */
const ENTRY_OVERHEAD = 160;

interface Entry {
  text: string;
  fp: Fingerprint | null;
  words: (HeldWords & { bytes: number }) | null;
  /** words() was asked for this text before. */
  asked: boolean;
  /** Read (text()) since it took its place in the eviction order. */
  read: boolean;
  bytes: number;
}

/** A held text's lines and their words (LineWords of `generation`). */
export interface HeldWords {
  generation: number;
  lines: readonly LineWords[];
  texts: readonly string[];
}

/** An Int32Array's header, a line string's and their places in the lists, beside the numbers. */
const WORDS_OVERHEAD = 120;

export class ChunkCache {
  private readonly entries = new Map<string, Entry>();
  private used = 0;

  constructor(readonly maxBytes: number = CHUNK_CACHE_BYTES) {}

  /** Bytes held (texts counted at two bytes a character). */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The text whose sha256 is `hash`, if held. */
  text(hash: string): string | undefined {
    return this.touch(hash)?.text;
  }

  /** Keeps a text read and verified against its hash. Empty texts (unreadable ones) are not kept. */
  put(hash: string, text: string): void {
    if (text === '' || this.entries.has(hash)) return;
    const e: Entry = { text, fp: null, words: null, asked: false, read: false, bytes: ENTRY_OVERHEAD + 2 * text.length };
    this.entries.set(hash, e);
    this.grow(e.bytes);
  }

  /** fingerprint(text), computed once while the text is held. */
  fingerprint(hash: string, text: string): Fingerprint {
    // Not marked as read again: text() did, when this answer read the text.
    const e = this.entries.get(hash);
    if (!e || e.text !== text) return fingerprint(text);
    if (!e.fp) {
      e.fp = fingerprint(text);
      e.bytes += e.fp.shingles.byteLength;
      this.grow(e.fp.shingles.byteLength);
    }
    return e.fp;
  }

  /**
   * The words of text.split('\n') (and the split lines, so an answer need not split again),
   * found the second time they are asked for (the first, when `eager`) while the text is held
   * (again when the term ids have started again since); null for a text not held, or asked for
   * the first time.
   */
  words(hash: string, text: string, eager = false): HeldWords | null {
    const e = this.entries.get(hash);
    if (!e || e.text !== text) return null;
    startAgainWhenFull();
    if (e.words?.generation !== termGeneration()) {
      // Else the first answer showing the text scans it with the probes: cheaper once, and the
      // texts of a one-shot search never come back.
      if (!eager && !e.asked) {
        e.asked = true;
        return null;
      }
      const texts = text.split('\n');
      const lines = texts.map(lineWords);
      const bytes = lines.reduce((n, w) => n + WORDS_OVERHEAD + 4 * w.length, 0);
      const delta = bytes - (e.words?.bytes ?? 0);
      e.words = { generation: termGeneration(), lines, texts, bytes };
      e.bytes += delta;
      this.grow(delta);
    }
    return e.words;
  }

  private touch(hash: string): Entry | undefined {
    const e = this.entries.get(hash);
    // Marked, not moved: a Map delete and set per text read was a few percent of a warm answer.
    if (e) e.read = true;
    return e;
  }

  /**
   * The Map's order is the eviction order. Its oldest entry goes, unless it was used since it
   * took its place: then it moves to the back, unmarked (a second chance), and the next goes.
   */
  private grow(bytes: number): void {
    this.used += bytes;
    for (const [hash, e] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(hash);
      if (e.read) {
        e.read = false;
        this.entries.set(hash, e);
        continue;
      }
      this.used -= e.bytes;
    }
  }
}
