/** Where prose may be cut: shared by the section splitter and the bare-heading pass. */

/** Offsets in [s, e) where a text block may be cut: line starts and sentence ends. */
export function textBoundaries(content: string, s: number, e: number): number[] {
  const cuts = new Set<number>();
  for (let i = content.indexOf('\n', s); i !== -1 && i < e - 1; i = content.indexOf('\n', i + 1)) cuts.add(i + 1);
  const sentence = /[.!?。！？]["'”’)\]]*\s+/g;
  sentence.lastIndex = s;
  for (let m = sentence.exec(content); m && m.index < e; m = sentence.exec(content)) {
    const at = m.index + m[0].length;
    if (at < e) cuts.add(at);
  }
  return [...cuts].sort((x, y) => x - y);
}
