import { type FileEntry, type FileStat, FileTable } from '../../src/lib/index/file-table.js';

/** A file table of these stats (the rest of each entry blank): what the stat checks read. */
export function tableOf(stats: Readonly<Record<string, FileStat>>): FileTable {
  return FileTable.fromEntries(Object.entries(stats).map(([path, st]): [string, FileEntry] => [path, { size: st.size, mtimeMs: st.mtimeMs, sha256: '', role: 'docs', chunkCount: 0 }]));
}
