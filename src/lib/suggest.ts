/**
 * "Did you mean …?" for commands, flags and topic ids: an edit distance (optimal string
 * alignment, so a swapped pair of letters costs 1) and the closest candidates within a bound.
 * Pure, no imports: the command-not-found hook and the fast path both use it.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** How far a typo may be from the word it meant: 1 for short words, up to a third of the length. */
export function typoBound(word: string): number {
  return Math.max(1, Math.min(3, Math.floor(word.length / 3)));
}

/**
 * Candidates closest to `word`, best first (ties in the given order), within the typo bound; a
 * candidate that starts with the word (an abbreviation: `ind` → `index`) also counts.
 */
export function closest(word: string, candidates: readonly string[], max = 3): string[] {
  const w = word.toLowerCase();
  if (!w) return [];
  const scored: { c: string; d: number; i: number }[] = [];
  candidates.forEach((c, i) => {
    const lc = c.toLowerCase();
    const d = editDistance(w, lc);
    if (d <= typoBound(w)) scored.push({ c, d, i });
    else if (w.length >= 3 && lc.startsWith(w)) scored.push({ c, d: typoBound(w) + 0.5, i });
  });
  scored.sort((x, y) => x.d - y.d || x.i - y.i);
  return [...new Set(scored.map((s) => s.c))].slice(0, max);
}

/**
 * The command a mistyped command line meant. `typed` is the words the user gave before any flag
 * (`['serach', 'foo']`), `ids` the commands with spaces (`'topic list'`). Each command is
 * compared with as many typed words as it has, so `topic lsit` meets `topic list` and `serach
 * foo` meets `search`. Returns the best ids (several when equally close).
 */
export function suggestCommands(typed: readonly string[], ids: readonly string[], max = 3): string[] {
  const scored: { id: string; d: number }[] = [];
  for (const id of ids) {
    const parts = id.split(' ');
    if (typed.length < parts.length) {
      // `topic` alone is a topic, handled by help; a shorter line can still be an abbreviation.
      continue;
    }
    const head = typed.slice(0, parts.length).join(' ').toLowerCase();
    const d = editDistance(head, id.toLowerCase());
    if (d <= typoBound(head)) scored.push({ id, d });
    else if (head.length >= 3 && id.startsWith(head)) scored.push({ id, d: typoBound(head) + 0.5 });
  }
  if (scored.length === 0) return [];
  scored.sort((a, b) => a.d - b.d || b.id.split(' ').length - a.id.split(' ').length || a.id.localeCompare(b.id));
  const best = scored[0]!.d;
  return scored.filter((s) => s.d === best).map((s) => s.id).slice(0, max);
}
