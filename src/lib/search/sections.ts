/**
 * Which section of a page answers a question after the whole of something (issue 26, section
 * choice), pure. A page's introduction (its chunks under the top heading alone) says what the page
 * is about; its later sections are narrow. When the question asks for an overview
 * (question-frame.ts) and a page's introduction scores close to the page's best section, the
 * introduction takes that section's place and the section follows it: the file keeps its rank
 * in the list, only which of its parts leads changes.
 */

/**
 * How close counts: within the docs prior's margin (fusion.ts DOCS_BOOST 1.1 lets docs win
 * against code up to ~10% higher), the same margin by which an introduction wins here.
 */
export const INTRO_SHARE = 1 / 1.1;

interface Ranked {
  key: string;
  topicId: string;
  path: string;
  score: number;
}

/** `isIntro(key)`: the hit's chunk sits under its page's top heading alone (a docs chunk). */
export function preferIntroductions<T extends Ranked>(hits: readonly T[], isIntro: (key: string) => boolean, share = INTRO_SHARE): T[] {
  const out = [...hits];
  const seen = new Set<string>();
  for (let i = 0; i < out.length; i++) {
    const best = out[i]!;
    const file = `${best.topicId}\u0000${best.path}`;
    if (seen.has(file)) continue;
    seen.add(file);
    if (isIntro(best.key)) continue;
    const j = out.findIndex((h, k) => k > i && h.topicId === best.topicId && h.path === best.path && h.score >= share * best.score && isIntro(h.key));
    if (j < 0) continue;
    const [intro] = out.splice(j, 1);
    // Equal scores: the order stays the list's, with the introduction first.
    out.splice(i, 0, { ...intro!, score: best.score });
  }
  return out;
}

/** A title that is its page's top heading alone (no `Page > Section` path); the page's first chunk is the other kind of introduction. */
export function isIntroTitle(title: string): boolean {
  return !title.includes(' > ');
}
