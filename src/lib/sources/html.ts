/**
 * HTML page → markdown for the reference store. Pure: no I/O.
 *
 * node-html-markdown converts faithfully but keeps navigation, loses fencing on `<pre>` without
 * `<code>` and recurses per nesting level, so the page is cleaned up first with node-html-parser:
 * depth capped, boilerplate removed, the main content chosen, code blocks rebuilt with their
 * language, links made absolute.
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { NodeHtmlMarkdown } from 'node-html-markdown';
import {
  allElements,
  capDepth,
  classTokens,
  escapeHtml,
  findFirst,
  hasDescendantTag,
  removeAll,
  squash,
  tagOf,
  textOf,
  textWeight,
} from './html-dom.js';
import { collectHiddenTexts, isHidden } from './html-hidden.js';
import { convertInPieces } from './html-segments.js';

export interface HtmlConversion {
  markdown: string;
  title?: string;
  /** Texts the page hides from people (see html-hidden.ts), for the injection checks. */
  hidden?: string[];
  /** With `withLinks`: every `<a href>` target of the document (absolute, navigation included), and `<link rel=canonical>`. */
  links?: string[];
  canonical?: string;
}

/** Far below the ~1,000 levels where node-html-markdown's recursion overflowed (measured). */
const MAX_DEPTH = 200;

/** Size of the HTML pieces converted one at a time (see html-segments.ts). */
const SEGMENT_CHARS = 16_000;

/**
 * node-html-markdown's parser settings (so its re-parse of our balanced output gives the same
 * tree), plus parseNoneClosedTags: the default repair of unclosed tags is super-linear (measured:
 * 3,000 stray `<span>`s took 200 s, 4,000 unclosed `<div>`s 28 s); left open they cost nothing.
 */
const PARSE_OPTIONS = {
  lowerCaseTagName: true,
  comment: false,
  fixNestedATags: true,
  parseNoneClosedTags: true,
  blockTextElements: { script: false, noscript: false, style: false },
};

/** Never content, wherever they are. */
const ALWAYS_DROP = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed',
  'link', 'meta', 'button', 'input', 'select', 'textarea', 'dialog',
]);

/** Page chrome; dropped unless it wraps the page's key content (see KEY_TAGS). */
const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside', 'form']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'complementary']);
const CHROME_CLASSES = new Set([
  'sidebar', 'side-bar', 'toc', 'table-of-contents', 'breadcrumb', 'breadcrumbs', 'skip-link',
  'skip-to-content', 'sr-only', 'visually-hidden', 'screen-reader-text', 'edit-this-page',
  'linenos', 'lineno', 'linenodiv', 'line-numbers-rows', 'rouge-gutter',
]);
/** An element holding one of these is the page itself, never chrome to drop. */
const KEY_TAGS = new Set(['h1', 'main', 'article']);
/** `<aside>` used for admonitions inside docs (Starlight, many themes) is content, not a sidebar. */
const CALLOUT = /admonition|callout|notecard|\bnote\b|\btip\b|warning|caution|important|danger/i;
/** Heading permalink anchors (¶, #, §) that would litter every heading. */
const ANCHOR_CLASSES = new Set(['headerlink', 'hash-link', 'anchor', 'anchorjs-link', 'header-anchor', 'heading-anchor']);

const CONTENT_IDS = ['content', 'main-content', 'main', 'docs-content', 'doc-content', 'page-content', 'primary'];
const CONTENT_CLASSES = [
  'markdown-body', 'rst-content', 'theme-doc-markdown', 'md-content', 'docs-content', 'doc-content',
  'main-content', 'page-content', 'post-content', 'entry-content', 'article-content', 'content', 'documentation',
];

const IGNORED_LANGUAGES = new Set(['none', 'default', 'nohighlight', 'notranslate', 'sourcecode', 'highlight']);

/** Convert a whole HTML document (or fragment) to markdown, preferring the main content. */
export function htmlToMarkdown(html: string, baseUrl?: string, withLinks = false): HtmlConversion {
  const root = parse(html, PARSE_OPTIONS);
  capDepth(root, MAX_DEPTH);

  const title = pageTitle(root);
  const base = baseFor(root, baseUrl);
  // Before the chrome goes: a site's navigation is where a crawl finds its pages.
  const found = withLinks ? linksOf(root, base) : undefined;
  const body = findFirst(root, (el) => tagOf(el) === 'body') ?? root;

  // Before the hidden elements are dropped: what a page hides is looked at, not kept.
  const hidden = collectHiddenTexts(allElements(body));
  removeBoilerplate(body);
  const content = chooseContent(body);
  unwrapHighlightTables(content);
  const elements = allElements(content); // one walk shared by the passes below
  const longestTicks = rebuildCodeBlocks(elements);
  resolveLinks(elements, base);

  const hasH1 = findFirst(content, (el) => tagOf(el) === 'h1' && squash(el.text) !== '') !== undefined;
  const converter = new NodeHtmlMarkdown({
    codeFence: '`'.repeat(Math.max(3, longestTicks + 1)),
    bulletMarker: '-',
    maxConsecutiveNewlines: 0, // our own collapse below leaves code blocks alone
  });
  const converted = convertInPieces(content, SEGMENT_CHARS, (piece) => converter.translate(piece));

  let markdown = collapseBlankLines(converted).trim();
  if (!hasH1 && title) markdown = markdown ? `# ${title}\n\n${markdown}` : `# ${title}`;
  if (markdown !== '') markdown += '\n';
  return { markdown, ...(title ? { title } : {}), ...(hidden.length > 0 ? { hidden } : {}), ...found };
}

/** Absolute targets of every `<a href>`, and the canonical URL, of the whole document. */
function linksOf(root: HTMLElement, base: URL | undefined): { links: string[]; canonical?: string } {
  const links: string[] = [];
  let canonical: string | undefined;
  for (const el of allElements(root)) {
    const tag = tagOf(el);
    if (tag === 'a') {
      const href = el.getAttribute('href');
      const abs = href === undefined ? null : absolute(href, base);
      if (abs) links.push(abs);
    } else if (tag === 'link' && canonical === undefined && (el.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).includes('canonical')) {
      const abs = absolute(el.getAttribute('href') ?? '', base);
      if (abs) canonical = abs;
    }
  }
  return { links, ...(canonical ? { canonical } : {}) };
}

function pageTitle(root: HTMLElement): string | undefined {
  const titleEl = findFirst(root, (el) => tagOf(el) === 'title');
  const fromTitle = titleEl ? squash(titleEl.text) : '';
  if (fromTitle) return fromTitle;
  const og = findFirst(root, (el) => tagOf(el) === 'meta' && el.getAttribute('property') === 'og:title');
  const fromOg = squash(og?.getAttribute('content') ?? '');
  if (fromOg) return fromOg;
  const h1 = findFirst(root, (el) => tagOf(el) === 'h1');
  const fromH1 = h1 ? squash(h1.text) : '';
  return fromH1 || undefined;
}

/** The document's `<base href>` applied to the page URL, as browsers do. */
function baseFor(root: HTMLElement, baseUrl?: string): URL | undefined {
  let base: URL | undefined;
  try {
    base = baseUrl ? new URL(baseUrl) : undefined;
  } catch {
    base = undefined;
  }
  const baseEl = findFirst(root, (el) => tagOf(el) === 'base' && el.hasAttribute('href'));
  const href = baseEl?.getAttribute('href');
  if (href) {
    try {
      base = new URL(href, base);
    } catch {
      // a relative <base> without a page URL: keep what we had
    }
  }
  return base;
}

function isChrome(el: HTMLElement): boolean {
  const tag = tagOf(el);
  if (tag === 'aside') return !CALLOUT.test(`${el.getAttribute('class') ?? ''} ${el.getAttribute('role') ?? ''}`);
  if (CHROME_TAGS.has(tag)) return true;
  const role = (el.getAttribute('role') ?? '').toLowerCase();
  if (CHROME_ROLES.has(role)) return true;
  const id = (el.getAttribute('id') ?? '').toLowerCase();
  if (CHROME_CLASSES.has(id)) return true;
  return classTokens(el).some((c) => CHROME_CLASSES.has(c));
}

function isPermalinkAnchor(el: HTMLElement): boolean {
  return tagOf(el) === 'a' && classTokens(el).some((c) => ANCHOR_CLASSES.has(c)) && squash(el.text).length <= 2;
}

function removeBoilerplate(body: HTMLElement): void {
  const doomed: HTMLElement[] = [];
  for (const el of allElements(body)) {
    if (el === body) continue;
    if (ALWAYS_DROP.has(tagOf(el)) || isPermalinkAnchor(el)) {
      doomed.push(el);
    } else if ((isHidden(el) || isChrome(el)) && !hasDescendantTag(el, KEY_TAGS)) {
      doomed.push(el);
    }
  }
  // Removing an element whose ancestor was already removed is harmless.
  removeAll(doomed);
}

/**
 * The main content: the first of `<main>`, `[role=main]`, a lone `<article>`, well-known content
 * ids and classes that holds a fair share of the page's text; else the whole (cleaned) body.
 */
function chooseContent(body: HTMLElement): HTMLElement {
  const buckets: (HTMLElement | undefined)[] = new Array(4 + CONTENT_IDS.length + CONTENT_CLASSES.length);
  let articles = 0;
  for (const el of allElements(body)) {
    const tag = tagOf(el);
    const slot = (i: number) => {
      if (buckets[i] === undefined) buckets[i] = el;
    };
    if (tag === 'main') slot(0);
    if ((el.getAttribute('role') ?? '').toLowerCase() === 'main') slot(1);
    // Only outermost articles count: several of them is a listing, not one page.
    if (tag === 'article' && !findAncestor(el, 'article')) {
      articles++;
      slot(2);
    }
    const id = (el.getAttribute('id') ?? '').toLowerCase();
    const idIdx = CONTENT_IDS.indexOf(id);
    if (idIdx >= 0) slot(4 + idIdx);
    for (const c of classTokens(el)) {
      const cIdx = CONTENT_CLASSES.indexOf(c);
      if (cIdx >= 0) slot(4 + CONTENT_IDS.length + cIdx);
    }
  }
  if (articles > 1) buckets[2] = undefined;

  const total = textWeight(body);
  for (const candidate of buckets) {
    if (!candidate) continue;
    const weight = textWeight(candidate);
    // An empty <main> (client-rendered) or a teaser card is not the page.
    if (weight > 0 && (weight >= total * 0.15 || weight >= 2000)) return candidate;
  }
  return body;
}

function findAncestor(el: HTMLElement, tag: string): HTMLElement | undefined {
  let cur = el.parentNode as HTMLElement | null;
  while (cur) {
    if (tagOf(cur) === tag) return cur;
    cur = cur.parentNode as HTMLElement | null;
  }
  return undefined;
}

/** Pygments/Rouge line-number tables: keep only the code cell's `<pre>`. */
function unwrapHighlightTables(content: HTMLElement): void {
  for (const table of allElements(content)) {
    if (tagOf(table) !== 'table') continue;
    const cls = classTokens(table);
    if (!cls.includes('highlighttable') && !cls.includes('rouge-table')) continue;
    const pres = allElements(table).filter((el) => tagOf(el) === 'pre');
    if (pres.length > 0) table.replaceWith(...pres);
  }
}

function languageFromClasses(tokens: string[]): string | undefined {
  for (const t of tokens) {
    const m = /^(?:language|lang|highlight-source|highlight)-(.+)$/.exec(t);
    if (m && !IGNORED_LANGUAGES.has(m[1]!)) return m[1];
  }
  // Pandoc: class="sourceCode rust"
  if (tokens.includes('sourcecode')) return tokens.find((t) => !IGNORED_LANGUAGES.has(t) && /^[a-z0-9+#_-]+$/.test(t));
  return undefined;
}

/** Language of a code block from the `<code>`, the `<pre>`, or up to two wrappers around it. */
function codeLanguage(pre: HTMLElement): string {
  const code = findFirst(pre, (el) => el !== pre && tagOf(el) === 'code');
  const chain: HTMLElement[] = [];
  if (code) chain.push(code);
  chain.push(pre);
  let up = pre.parentNode as HTMLElement | null;
  for (let i = 0; i < 2 && up; i++, up = up.parentNode as HTMLElement | null) chain.push(up);
  for (const el of chain) {
    const data = el.getAttribute('data-lang') ?? el.getAttribute('data-language');
    const lang = data?.toLowerCase() || languageFromClasses(classTokens(el));
    if (lang) return lang.replace(/[^a-z0-9+#._-]/g, '');
  }
  return '';
}

/**
 * Replace every `<pre>` by `<pre><code class="language-x">text</code></pre>`: one child, so
 * node-html-markdown fences it, whatever highlighter markup (spans, `<br>`, buttons) it had.
 * Returns the longest run of backticks seen in code, to pick a fence that cannot close early.
 */
function rebuildCodeBlocks(elements: HTMLElement[]): number {
  let longest = 0;
  const empty: HTMLElement[] = [];
  // Outermost <pre> only; one nested in another goes with the outer one's old children.
  const pres = elements.filter((el) => tagOf(el) === 'pre' && !findAncestor(el, 'pre'));
  for (const pre of pres) {
    const lang = codeLanguage(pre);
    const text = textOf(pre).replace(/\r\n?/g, '\n').replace(/^\n/, '').replace(/\s+$/, '');
    if (text.trim() === '') {
      empty.push(pre);
      continue;
    }
    for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
    const cls = lang ? ` class="language-${lang}"` : '';
    // set_content, not replaceWith: replaceWith scans the siblings (quadratic over many blocks).
    pre.set_content(`<code${cls}>${escapeHtml(text)}</code>`);
  }
  removeAll(empty);
  return longest;
}

const KEEP_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** Make link and image targets absolute; drop javascript: and other non-web targets. */
function resolveLinks(elements: HTMLElement[], base: URL | undefined): void {
  const unsafeImages: HTMLElement[] = [];
  for (const el of elements) {
    const tag = tagOf(el);
    if (tag === 'a') {
      const href = el.getAttribute('href');
      if (href === undefined) continue;
      const abs = absolute(href, base);
      if (abs === null) el.removeAttribute('href');
      else el.setAttribute('href', abs);
    } else if (tag === 'img') {
      let src = el.getAttribute('src');
      // Lazy-loading pages keep the real image in data-src.
      if (!src || src.startsWith('data:')) src = el.getAttribute('data-src') ?? src;
      if (!src) continue;
      const abs = absolute(src, base);
      if (abs === null) unsafeImages.push(el);
      else el.setAttribute('src', abs);
    }
  }
  removeAll(unsafeImages);
}

/** Absolute form of a link; the original when it cannot be resolved; null for unsafe schemes. */
function absolute(ref: string, base: URL | undefined): string | null {
  const trimmed = ref.trim();
  let url: URL;
  try {
    url = new URL(trimmed, base);
  } catch {
    return trimmed;
  }
  return KEEP_SCHEMES.has(url.protocol) ? url.href : null;
}

/** At most one blank line between blocks, outside fenced code (whose blank lines are content). */
export function collapseBlankLines(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  let blanks = 0;
  for (const line of markdown.split('\n')) {
    if (fence === null) {
      const open = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (open) fence = open;
      else if (line.trim() === '') {
        blanks++;
        if (blanks === 1) out.push('');
        continue;
      }
    } else {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length) fence = null;
    }
    blanks = 0;
    // Trailing spaces stay (two of them are a hard line break), except after a heading.
    out.push(fence === null && /^#{1,6}\s/.test(line) ? line.trimEnd() : line);
  }
  return out.join('\n');
}
