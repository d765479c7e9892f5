/**
 * How a fetch names files in a topic folder: the folder each source fills, and the names already
 * held (case-insensitively), so two sources never share a file.
 */
import { repoDisplayName } from '../sources/git-url.js';
import { npmFolder } from '../sources/npm/names.js';
import { RESERVED_NAMES } from '../store/topic-files.js';
import type { ContentFacts } from './file-records.js';
import type { SourceRequest } from './request.js';

/** A path as a case-insensitive file system compares it: `/x` and `/X` would be one file there. */
export function nameKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/**
 * The names held in a topic folder, compared case-insensitively, files and the folders above
 * them: two sources never share a name, and a file never takes a name another source's folder
 * holds (or sits under another source's file). Web pages take the first free `<slug>.md`,
 * `<slug>-2.md`, …; git files keep their repository paths, so one whose name is held is skipped.
 */
export class NameBook {
  private readonly held = new Map<string, 'file' | 'dir'>();

  constructor(paths: Iterable<string> = []) {
    for (const r of RESERVED_NAMES) this.held.set(r, 'file');
    for (const p of paths) this.claim(p);
  }

  free(path: string): boolean {
    const parts = nameKey(path).split('/');
    for (let i = 1; i < parts.length; i++) if (this.held.get(parts.slice(0, i).join('/')) === 'file') return false;
    return !this.held.has(parts.join('/'));
  }

  claim(path: string): void {
    const parts = nameKey(path).split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!this.held.has(dir)) this.held.set(dir, 'dir');
    }
    this.held.set(parts.join('/'), 'file');
  }

  /** The first free name of `<base>.md`, `<base>-2.md`, …, claimed. */
  allocate(fileName: string): string {
    let name = fileName;
    for (let n = 2; !this.free(name); n++) name = fileName.replace(/\.md$/, `-${n}.md`);
    this.claim(name);
    return name;
  }
}

/**
 * How one fetch names its files: `book` holds every name the topic's other sources (and files
 * nobody fetched) already have; `recorded` is the name a web page got when first fetched, reused
 * for as long as the source exists so a refresh writes each page back where it was.
 */
export interface Naming {
  book: NameBook;
  recorded?: string;
  /**
   * A crawl refreshed: the pages stored before, by page URL (their names, validators and what
   * was fetched: a 304 keeps that record).
   */
  pages?: ReadonlyMap<string, { path: string; etag?: string; last_modified?: string; fetched: ContentFacts }>;
  /** Where the pages stored before are (the topic folder): their links are read from there when a page answers 304. */
  storedDir?: string;
}

/**
 * Folder of each source inside the topic: a lone git source fills the topic folder (paths kept as
 * in the repository); several git sources each get a folder named after the repository so their
 * files cannot collide. Web pages always sit at the top as `<url-slug>.md`.
 */
export function sourcePrefixes(sources: Pick<SourceRequest, 'type' | 'url' | 'package'>[]): string[] {
  const gitCount = sources.filter((s) => s.type === 'git').length;
  const used = new Set<string>();
  return sources.map((s) => {
    if (s.type === 'npm') return npmFolder(s.package ?? s.url.replace(/^npm:/, ''));
    if (s.type !== 'git' || gitCount < 2) return '';
    const base = (repoDisplayName(s.url).split('/').pop() || 'repo').toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'repo';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    return name;
  });
}
