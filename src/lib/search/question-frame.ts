/**
 * The words of a question that frame it rather than name what it is about, pure (issue 26, section
 * choice). In "how does reactivity work", `how`, `does` and `work` are the question's shape; left
 * in the BM25 query they matched headings such as "Working with Untracked State" and "How does
 * the callback behave?", so a late, narrow section beat the page that explains reactivity. The
 * lexical query drops a leading interrogative with its auxiliary and subject, and the `work` /
 * `works` of a "how … work" question; the vector query and the snippet keep every word.
 *
 * Only a leading interrogative followed by an auxiliary is a frame: "where clause in sql" and
 * "how many retries" keep their first word.
 */

const LEAD =
  /^\s*(?:how|what|why|when|where|which|who)(?:'s|\s+(?:do|does|did|is|are|was|were|can|could|should|would|will|to|much|about))\b(?:\s+(?:i|we|you|one|it|they))?\b/i;
/** The verb of "how does X work (with Y)": the first `work`/`works` after the frame. */
const HOW_WORK = /\b(?:work|works)\b/i;

/** The question without its frame words; the question itself when nothing else would be left. */
export function lexicalQuestion(question: string): string {
  const lead = LEAD.exec(question);
  if (!lead) return question;
  let rest = question.slice(lead[0].length);
  if (/^\s*how\b/i.test(question)) rest = rest.replace(HOW_WORK, '');
  return /[\p{L}\p{N}]/u.test(rest) ? rest.trim() : question;
}

/**
 * A question after how something works or what it is, as a whole ("how does routing work", "what
 * is a signal", "explain hydration", "overview of …"): its answer is a page's introduction more
 * than one of its sections.
 */
const OVERVIEW = /^\s*(?:how\s+(?:do|does)\b.*\bworks?\b|what(?:'s|\s+(?:is|are))\b|explain\b|(?:an?\s+)?(?:overview|introduction|intro)\s+(?:of|to)\b)/i;

export function asksForOverview(question: string): boolean {
  return OVERVIEW.test(question);
}
