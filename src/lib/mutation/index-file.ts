/**
 * Reads just enough of a git index file (format versions 2 and 3, SHA-1) to tell that it holds
 * exactly a given tree: every entry at stage 0 without special flags, and a valid cache tree
 * (git's `TREE` extension) whose root is that tree. Git trusts that cache tree when it writes a
 * commit, so the entries are the tree's. Anything else (version 4, a split or sparse index, an
 * untracked or fsmonitor cache, unmerged or intent-to-add entries) answers false, and the commit
 * step does what it did before (`read-tree`, `reset`).
 */

/** `buf` (an index file's bytes) holds exactly the entries of `tree` and no extension but `TREE`. */
export function indexIsTree(buf: Buffer, tree: string): boolean {
  if (tree.length !== 40 || buf.length < 12 + 20 || buf.toString('latin1', 0, 4) !== 'DIRC') return false;
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) return false;
  const count = buf.readUInt32BE(8);
  const end = buf.length - 20; // the trailing checksum
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at + 62 > end) return false;
    const flags = buf.readUInt16BE(at + 60);
    // assume-valid, extended (skip-worktree, intent-to-add), or a stage other than 0
    if (flags & 0xf000) return false;
    let nameLen = flags & 0x0fff;
    if (nameLen === 0x0fff) {
      const nul = buf.indexOf(0, at + 62);
      if (nul < 0 || nul >= end) return false;
      nameLen = nul - (at + 62);
    }
    // 62 bytes of fields, the name, then 1–8 NULs up to a multiple of 8
    at += (62 + nameLen + 8) & ~7;
  }
  let rootTree: string | null = null;
  while (at + 8 <= end) {
    const sig = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32BE(at + 4);
    const data = at + 8;
    if (sig !== 'TREE' || data + size > end) return false;
    // The root node comes first: an empty path, "<entries> <subtrees>\n", then its id when valid.
    const nl = buf.indexOf(0x0a, data);
    if (buf[data] !== 0 || nl < 0 || nl >= data + size) return false;
    const entries = Number(buf.toString('latin1', data + 1, nl).split(' ')[0]);
    if (entries !== count || nl + 1 + 20 > data + size) return false;
    rootTree = buf.toString('hex', nl + 1, nl + 21);
    at = data + size;
  }
  return at === end && rootTree === tree;
}
