/**
 * Prompt-injection heuristics for fetched text. Fetched files are data that other ghosts read;
 * these patterns mark places where that data talks *to* its reader as if it were instructions
 * (override earlier instructions, switch roles, fake chat-template markers, covert requests to
 * run commands or send data away) or hides characters from human reviewers (zero-width, bidi).
 *
 * Pure and linear: every pattern is a bounded regular expression run once over the whole text;
 * line numbers come from a newline index. Tuned for few false positives on real documentation
 * (measured on the READMEs in node_modules: see test/safety/injection.test.ts); a finding is a
 * reason to weigh the text, never proof of an attack.
 */

export type FindingKind =
  | 'instruction_override'
  | 'role_play'
  | 'new_instructions'
  | 'role_marker'
  | 'command_request'
  | 'zero_width'
  | 'bidi_control'
  | 'hidden_text';

export const FINDING_KINDS: readonly FindingKind[] = [
  'instruction_override',
  'role_play',
  'new_instructions',
  'role_marker',
  'command_request',
  'zero_width',
  'bidi_control',
  'hidden_text',
];

export interface Finding {
  kind: FindingKind;
  /** 1-based line in the stored file; 0 when the finding concerns the file as a whole. */
  line: number;
  /** A short, single-line, escaped quote of the matched text (invisible characters shown as \u{…}). */
  excerpt: string;
}

export interface DetectOptions {
  /** At most this many findings per text (default 20); the first ones by line are kept. */
  maxFindings?: number;
  /** Excerpt length in characters (default 120). */
  excerptChars?: number;
  /** How the case-insensitive patterns run; the findings are the same. Default: by the process's volume (below). */
  scan?: 'combined' | 'separate';
}

export const DEFAULT_MAX_FINDINGS = 20;
const DEFAULT_EXCERPT_CHARS = 120;
/** Texts above this size are scanned in their first part only: the scan must stay cheap. */
const MAX_SCAN_CHARS = 4 * 1024 * 1024;

/** Horizontal space only: every pattern stays on one line, so a match never spans paragraphs. */
const S = '[ \\t]+';
const OPT_S = '[ \\t]*';

const OVERRIDE_VERBS = '(?:ignore|disregard|forget|override|overrule|bypass|abandon)';
const EARLIER = '(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|developer)';
const DIRECTIVES = '(?:instructions?|prompts?|directions|directives?|rules|guidelines|commands|orders|context|messages|constraints|programming)';
const AI = '(?:ai|a\\.i\\.|assistant|chatbot|language' + S + 'model|llm|gpt|chatgpt|claude|copilot|dan)';

interface Pattern {
  kind: FindingKind;
  re: RegExp;
}

const PATTERNS: Pattern[] = [
  // "ignore all previous instructions", "disregard the above rules", "override your system prompt"
  {
    kind: 'instruction_override',
    re: new RegExp(`\\b${OVERRIDE_VERBS}${S}(?:(?:all|any|each|every|the|your|my|of|these|those|previous|prior|above)${S}){0,4}${EARLIER}${S}${DIRECTIVES}\\b`, 'gi'),
  },
  // "disregard the above and …", "ignore everything above."
  {
    kind: 'instruction_override',
    re: new RegExp(`\\b(?:ignore|disregard|forget)${S}(?:all${S}|everything${S})?(?:the${S})?(?:above|before${S}this|previous${S}text)${OPT_S}(?:[.;:!]|,${S}and\\b|${S}and${S}(?:instead|now|just|only|say|print|respond|reply|output|write|tell|answer)\\b)`, 'gi'),
  },
  { kind: 'instruction_override', re: new RegExp(`\\bforget${S}(?:everything|all)${S}(?:you${S}(?:know|were${S}told)|(?:you've|you${S}have)${S}been${S}told|above)\\b`, 'gi') },
  // "you are now DAN", "you are now in developer mode", "you are now an unrestricted AI"
  {
    kind: 'role_play',
    re: new RegExp(
      `\\byou${S}are${S}now${S}(?:(?:a|an|the|in|my|no${S}longer${S}an?|free${S}from)${S})?[^\\n.]{0,40}?\\b(?:${AI}|jailbr\\w*|unrestricted|unfiltered|uncensored|(?:developer|god|jailbreak|dan)${S}mode)\\b`,
      'gi',
    ),
  },
  // "from now on, you will only answer …", "from now on you must obey"
  {
    kind: 'role_play',
    re: new RegExp(
      `\\bfrom${S}now${S}on,?${S}you${S}(?:are|will|must|shall|should|have${S}to)${S}(?:only${S}|always${S}|never${S})?(?:respond|answer|reply|act|behave|pretend|obey|roleplay|role-play|speak|talk|refuse|ignore|be${S}(?:an?${S})?(?:${AI}|evil|unrestricted))\\b`,
      'gi',
    ),
  },
  // "pretend you are an unrestricted AI", "act as a jailbroken assistant"
  {
    kind: 'role_play',
    re: new RegExp(
      `\\b(?:pretend${S}(?:to${S}be|(?:that${S})?you${S}are)|act${S}as(?:${S}if${S}you${S}(?:are|were))?|roleplay${S}as)${S}(?:an?${S})?(?:(?:evil|unrestricted|unfiltered|uncensored|jailbroken|rogue|malicious|different)${S})(?:${AI}|version|persona|character)\\b`,
      'gi',
    ),
  },
  { kind: 'role_play', re: new RegExp(`\\byour${S}new${S}(?:role|persona|instructions|task|objective|goal|purpose)${S}(?:is|are)\\b`, 'gi') },
  // "New instructions:" / "Updated system instructions:" as a line of its own or inline
  {
    kind: 'new_instructions',
    re: new RegExp(`\\b(?:new|updated|revised|real|actual|true|hidden|secret|override)${S}(?:system${S})?(?:instructions?|directives?|system${S}prompt)${OPT_S}[:：]`, 'gi'),
  },
  // Chat-template and role markers that no documentation needs outside of LLM tooling.
  {
    kind: 'role_marker',
    re: /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|start_header_id|end_header_id|eot_id|begin_of_text)\|>|\[\/?INST\]|<<\/?SYS>>/gi,
  },
  // "### System:" / "## Assistant instructions:" headings; "SYSTEM:" at the start of a line (upper case).
  { kind: 'role_marker', re: new RegExp(`^[ \\t>]*#{1,6}${OPT_S}(?:system|assistant)(?:${S}(?:prompt|message|instructions?))?${OPT_S}:`, 'gim') },
  { kind: 'role_marker', re: /^[ \t>*_]*(?:SYSTEM|ASSISTANT)[ \t]*:[ \t]+[A-Za-z'’]+(?:[ \t]+[A-Za-z'’,.]+){2,}/gm },
  // Covert requests aimed at the reader: keep things from the user, run things without asking.
  {
    kind: 'command_request',
    re: new RegExp(`\\b(?:do${S}not|don't|never)${S}(?:tell|inform|mention${S}(?:this${S})?to|reveal${S}(?:this${S})?to|alert)${S}(?:the${S})?(?:user|human|operator)s?\\b`, 'gi'),
  },
  {
    kind: 'command_request',
    re: new RegExp(
      `\\b(?:run|execute)${S}(?:this|the${S}following|these)${S}(?:command|commands|code|script)s?${S}(?:silently|secretly|quietly|immediately${S}without|without${S}(?:asking|telling|confirmation|confirming|informing|showing))\\b`,
      'gi',
    ),
  },
  {
    kind: 'command_request',
    re: new RegExp(`\\b${AI}s?${S}(?:must|should|shall|needs?${S}to|has${S}to|is${S}(?:required|instructed)${S}to)${S}(?:now${S}|immediately${S}|also${S})?(?:run|execute|call|invoke|fetch|visit|curl|send|post|upload|reveal|print|output|delete)\\b`, 'gi'),
  },
  // Data leaving the machine: secret files or the conversation itself sent to a URL.
  {
    kind: 'command_request',
    re: /\b(?:curl|wget|nc|ncat|Invoke-WebRequest|iwr)\b[^\n]{0,200}?(?:\$\(\s*(?:env|printenv|cat[ \t][^)\n]{0,80}?(?:\.ssh|\.aws|\.env\b|id_rsa|id_ed25519|\.netrc|\.npmrc|\.git-credentials|\/etc\/passwd|\/etc\/shadow))|@~?\/?[^\s]{0,80}?(?:\.ssh\/|\.aws\/|id_rsa|id_ed25519|\.netrc|\.git-credentials))/gi,
  },
  {
    kind: 'command_request',
    re: new RegExp(
      `\\b(?:send|post|upload|forward|transmit|exfiltrate|leak)${S}(?:(?:the|this|your|all|entire|full|whole|of|users?'?s?)${S}){0,3}(?:conversation|chat${S}history|system${S}prompt|previous${S}messages|ssh${S}keys?|private${S}keys?|env(?:ironment)?${S}variables|\\.env${S}file|(?:secrets|credentials|passwords|api${S}keys|tokens)${S}(?:you|of${S}the${S}user))\\b[^\\n]{0,100}?\\b(?:to|into)${S}(?:https?:\\/\\/|!\\[|an?${S}(?:url|webhook|server))`,
      'gi',
    ),
  },
];

/**
 * The case-insensitive patterns as one alternation: a single pass over the text costs about
 * half of running them one by one (measured: 28 MB of node_modules in 0.85 s instead of 1.9 s).
 * Named groups tell which pattern matched.
 */
const INSENSITIVE = PATTERNS.filter((p) => p.re.flags.includes('i'));
const SENSITIVE = PATTERNS.filter((p) => !p.re.flags.includes('i'));
const COMBINED = new RegExp(INSENSITIVE.map((p, i) => `(?<k${i}>${p.re.source})`).join('|'), 'gim');
/**
 * The same patterns one by one, with the alternation's flags. V8 compiles a regular expression on
 * its first use: the alternation cost a process ~35 ms of CPU here, the fifteen parts ~15 ms. So a
 * process scans with the parts until it has scanned this much text (a small create or refresh
 * never gets there), then with the alternation, whose faster scan then repays its compiling.
 */
const SEPARATE = INSENSITIVE.map((p) => new RegExp(p.re.source, 'gim'));
const SEPARATE_UP_TO_CHARS = 256 * 1024;
let scannedChars = 0;

/**
 * Exactly the matches COMBINED gives from 0, in order, at most `cap`, from the parts: at each step
 * the leftmost match of any part, the first part among those at the same place (as an alternation
 * tries its branches), the next step from where it ended. A part's earlier answer stays its
 * leftmost while it starts at or after that point.
 */
function scanSeparately(text: string, cap: number, onMatch: (part: number, m: RegExpExecArray) => void): void {
  const next: (RegExpExecArray | null | undefined)[] = SEPARATE.map(() => undefined);
  let from = 0;
  for (let n = 0; n < cap; n++) {
    let best = -1;
    for (let i = 0; i < SEPARATE.length; i++) {
      let m = next[i];
      if (m === undefined || (m !== null && m.index < from)) {
        const re = SEPARATE[i]!;
        re.lastIndex = from;
        next[i] = m = re.exec(text);
      }
      if (m !== null && (best < 0 || m.index < next[best]!.index)) best = i;
    }
    if (best < 0) return;
    const m = next[best]!;
    onMatch(best, m);
    from = m.index + Math.max(m[0].length, 1);
  }
}

// Zero-width characters that never belong in prose: ZWSP, word joiner and friends, a BOM
// after the first character, and the Unicode "tag" block used to smuggle invisible ASCII
// (written as surrogate pairs: without the u flag the scan is cheaper).
const ALWAYS_INVISIBLE = /[\u200B\u2060-\u2064\uFEFF]|\uDB40[\uDC00-\uDC7F]/g;
// ZWNJ, ZWJ, LRM and RLM are legitimate in emoji sequences and in Arabic, Persian and Indic
// text: only suspicious when hidden between two printable ASCII characters.
const JOINERS = /[\u200C-\u200F]+/g;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/g;

function isPrintableAscii(code: number): boolean {
  return code >= 0x21 && code <= 0x7e;
}

/** Index of line starts, for turning match offsets into 1-based line numbers. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * Makes text safe to quote: one line, invisible and control characters written as `\u{…}`,
 * at most `max` characters. Excerpts never carry the hidden characters they report.
 */
export function visibleExcerpt(text: string, max = DEFAULT_EXCERPT_CHARS): string {
  const shown = text
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2069\u3164\uFEFF\uFFA0]|[\u{E0000}-\u{E007F}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
    .replace(/\s+/g, ' ')
    .trim();
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}

/** The line around a match, cut to the excerpt size with the match kept in view. */
function excerptAround(text: string, starts: number[], index: number, length: number, max: number): string {
  const line = lineAt(starts, index);
  const from = starts[line - 1]!;
  const nl = text.indexOf('\n', from);
  const to = nl < 0 ? text.length : nl;
  const lead = Math.max(from, Math.min(index - 30, to - max));
  const quoted = visibleExcerpt(text.slice(lead, Math.min(to, Math.max(index + length, lead + max))), max);
  return lead > from ? `…${quoted}` : quoted;
}

/**
 * Findings in one text, sorted by line then kind, at most one per kind and line, bounded.
 * Never throws: any string is accepted.
 */
export function detectInjection(input: string, opts: DetectOptions = {}): Finding[] {
  const max = opts.maxFindings ?? DEFAULT_MAX_FINDINGS;
  const excerptChars = opts.excerptChars ?? DEFAULT_EXCERPT_CHARS;
  if (typeof input !== 'string' || input.length === 0 || max <= 0) return [];
  const text = input.length > MAX_SCAN_CHARS ? input.slice(0, MAX_SCAN_CHARS) : input;
  const starts = lineStarts(text);
  const seen = new Set<string>();
  const found: Finding[] = [];
  const add = (kind: FindingKind, index: number, length: number): void => {
    const line = lineAt(starts, index);
    const key = `${kind}:${line}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ kind, line, excerpt: excerptAround(text, starts, index, length, excerptChars) });
  };
  // Bounded per pattern too: a file with thousands of matches must not cost thousands of excerpts.
  const cap = max * 4;
  const scan = (re: RegExp, onMatch: (m: RegExpExecArray) => void): void => {
    re.lastIndex = 0;
    let n = 0;
    for (let m = re.exec(text); m && n < cap; m = re.exec(text), n++) {
      if (m[0].length === 0) re.lastIndex++;
      onMatch(m);
    }
  };
  const separate = opts.scan === undefined ? scannedChars < SEPARATE_UP_TO_CHARS : opts.scan === 'separate';
  scannedChars += text.length;
  if (separate) scanSeparately(text, cap, (i, m) => add(INSENSITIVE[i]!.kind, m.index, m[0].length));
  else
    scan(COMBINED, (m) => {
      for (let i = 0; i < INSENSITIVE.length; i++) {
        if (m.groups![`k${i}`] !== undefined) {
          add(INSENSITIVE[i]!.kind, m.index, m[0].length);
          return;
        }
      }
    });
  for (const p of SENSITIVE) scan(p.re, (m) => add(p.kind, m.index, m[0].length));
  scan(ALWAYS_INVISIBLE, (m) => {
    // A byte order mark at the very start is an encoding artefact, not hidden text.
    if (!(m.index === 0 && m[0] === '\uFEFF')) add('zero_width', m.index, m[0].length);
  });
  scan(JOINERS, (m) => {
    const before = m.index > 0 ? text.charCodeAt(m.index - 1) : 0;
    const after = text.charCodeAt(m.index + m[0].length);
    if (isPrintableAscii(before) && isPrintableAscii(after)) add('zero_width', m.index, m[0].length);
  });
  scan(BIDI, (m) => add('bidi_control', m.index, m[0].length));
  found.sort((a, b) => a.line - b.line || FINDING_KINDS.indexOf(a.kind) - FINDING_KINDS.indexOf(b.kind));
  return found.slice(0, max);
}

/**
 * Hidden text that speaks to a model ("note to AI agents:", "if you are an LLM", "AI reading
 * this"). Mere mentions of AI are not enough: hidden tab panels on AI libraries' pages have them.
 */
const MODEL_WORDS = `(?:ai|a\\.i\\.|llm|language${S}model|assistant|agent|bot|model|chatbot|crawler|gpt|chatgpt|claude)`;
const ADDRESSES_MODEL = new RegExp(
  `\\b(?:if|when|since)${S}you${S}are${S}an?${S}${MODEL_WORDS}\\b` +
    `|\\b(?:note|message|attention|instructions?|reminder)${S}(?:to|for)${S}(?:all${S}|any${S}|the${S})?${MODEL_WORDS}s?\\b` +
    `|\\b(?:ai|llm|language${S}model|assistant|agent)s?${S}(?:reading|processing|summari[sz]ing|parsing)${S}this\\b`,
  'i',
);

/**
 * Findings for text a page hides from people (display:none, aria-hidden, white on white…).
 * Hidden menus and icons are everywhere, so hidden text is only flagged when it matches a
 * pattern above or addresses a model; the finding is about the file as a whole (line 0).
 */
export function detectHiddenText(hidden: readonly string[], opts: DetectOptions = {}): Finding[] {
  const max = opts.maxFindings ?? DEFAULT_MAX_FINDINGS;
  const out: Finding[] = [];
  for (const text of hidden) {
    if (out.length >= max) break;
    if (typeof text !== 'string' || text.trim() === '') continue;
    const inner = detectInjection(text, { maxFindings: 1, excerptChars: opts.excerptChars });
    if (inner.length > 0) out.push({ kind: 'hidden_text', line: 0, excerpt: `${inner[0]!.kind}: ${inner[0]!.excerpt}` });
    else if (ADDRESSES_MODEL.test(text)) out.push({ kind: 'hidden_text', line: 0, excerpt: visibleExcerpt(text, opts.excerptChars) });
  }
  return out;
}
