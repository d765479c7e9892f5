/**
 * node-html-markdown is quadratic in its output size: every append re-reads its growing result
 * string (`slice(-1)` and a trailing-whitespace scan flatten it), so a 350 KB page took 8 s and a
 * `<main>` of 8,000 bare links 35 s (measured). A big page is therefore converted in pieces of
 * bounded size, which makes the whole conversion linear in the page:
 * - blocks are cut apart and joined with a blank line (markdown blocks do not depend on their
 *   neighbours, so the result reads like a single conversion);
 * - a long run of inline content (text, links) is cut between its nodes and joined as it stood
 *   (with a space where the page had whitespace at the cut);
 * - an element too big to convert at once is opened: its children are converted in pieces and
 *   the element's own markdown (heading marks, quote marks, list marker) is put around them. A
 *   giant inline element (`<a>`, `<em>`) keeps its text and loses its formatting.
 */
import type { HTMLElement, Node } from 'node-html-parser';
import { isElement, isText, tagOf } from './html-dom.js';

/** Elements that end a markdown block, so a piece may end right after them. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'dd', 'details', 'div', 'dl', 'dt', 'figure', 'h1',
  'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'footer', 'hr', 'li', 'main', 'ol', 'p', 'pre', 'section',
  'table', 'tr', 'ul',
]);

type Translate = (html: string) => string;

/** Approximate serialised size of every element under root, computed once, without recursion. */
function sizes(root: HTMLElement): Map<Node, number> {
  const size = new Map<Node, number>();
  const order: HTMLElement[] = [];
  const stack: HTMLElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    order.push(el);
    for (const kid of el.childNodes) if (isElement(kid)) stack.push(kid);
  }
  // Children come after their parent in `order`, so walking it backwards sees them first.
  for (let i = order.length - 1; i >= 0; i--) {
    const el = order[i]!;
    let n = 2 * tagOf(el).length + 5 + (el.rawAttrs?.length ?? 0);
    for (const kid of el.childNodes) n += isText(kid) ? kid.rawText.length : (size.get(kid) ?? 0);
    size.set(el, n);
  }
  return size;
}

const isBlock = (n: Node): boolean => isElement(n) && BLOCKS.has(tagOf(n));
const startsWithSpace = (n: Node | undefined): boolean => n !== undefined && isText(n) && /^\s/.test(n.rawText);
const endsWithSpace = (n: Node | undefined): boolean => n !== undefined && isText(n) && /\s$/.test(n.rawText);

/** Markdown parts and what separates each from the one before it. */
class Parts {
  private readonly out: string[] = [];

  add(markdown: string, sep: string): void {
    if (markdown === '') return;
    if (this.out.length > 0) this.out.push(sep);
    this.out.push(markdown);
  }

  text(): string {
    return this.out.join('');
  }
}

/**
 * Markdown of root, converted by `translate` in pieces of about `limit` characters of HTML.
 * Each translate call sees at most about `limit` characters, so the total work is linear.
 */
export function convertInPieces(root: HTMLElement, limit: number, translate: Translate): string {
  const size = sizes(root);
  const sizeOf = (n: Node) => (isText(n) ? n.rawText.length : (size.get(n) ?? 0));
  const md = (html: string) => translate(html).trim();

  const convert = (el: HTMLElement): string => {
    if (sizeOf(el) <= limit) return md(el.toString());
    const tag = tagOf(el);
    if (tag === 'ul' || tag === 'ol' || tag === 'table') return rows(el);
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) return `${'#'.repeat(Number(heading[1]))} ${children(el).replace(/\s*\n\s*/g, ' ')}`;
    if (tag === 'blockquote') return children(el).split('\n').map((l) => (l === '' ? '>' : `> ${l}`)).join('\n');
    // One code block is one text node, which the converter appends once: linear already.
    if (tag === 'pre') return md(el.toString());
    return children(el);
  };

  /** el's children, small ones batched, big ones opened; blocks and inline runs joined as they stood. */
  const children = (el: HTMLElement): string => {
    const parts = new Parts();
    const kids = el.childNodes;
    let start = 0; // first kid of the current batch
    let batchSize = 0;
    /** What goes between the part ending before kids[at] and the one starting there. */
    const sepAt = (at: number) => {
      if (isBlock(kids[at - 1]!) || isBlock(kids[at]!)) return '\n\n';
      return endsWithSpace(kids[at - 1]) || startsWithSpace(kids[at]) ? ' ' : '';
    };
    const flush = (end: number) => {
      if (end > start) parts.add(md(kids.slice(start, end).map((k) => k.toString()).join('')), start > 0 ? sepAt(start) : '');
      start = end;
      batchSize = 0;
    };
    for (let i = 0; i < kids.length; i++) {
      const kid = kids[i]!;
      if (isElement(kid) && sizeOf(kid) > limit) {
        flush(i);
        parts.add(convert(kid), i > 0 ? sepAt(i) : '');
        start = i + 1;
        continue;
      }
      batchSize += sizeOf(kid);
      if (batchSize >= limit) flush(i + 1);
    }
    flush(kids.length);
    return parts.text();
  };

  /** A long list or table becomes several shorter ones: tables repeat their header, lists keep their numbers. */
  const rows = (el: HTMLElement): string => {
    const tag = tagOf(el);
    const all: Node[] = [];
    const collect = (parent: HTMLElement) => {
      for (const kid of parent.childNodes) {
        if (isElement(kid) && ['thead', 'tbody', 'tfoot'].includes(tagOf(kid))) collect(kid);
        else if (!isText(kid) || kid.rawText.trim() !== '') all.push(kid);
      }
    };
    collect(el);
    const firstRow = all.find((r) => isElement(r) && tagOf(r) === 'tr');
    const header = tag === 'table' && firstRow && sizeOf(firstRow) <= limit ? firstRow.toString() : '';
    const parts = new Parts();
    let batch: string[] = [];
    let batchSize = 0;
    let items = 0; // list items before the batch, to number an <ol>'s later pieces
    let batchItems = 0;
    const flush = () => {
      if (batch.some((b) => b !== '')) {
        const piece = md(`<${tag}>${header}${batch.join('')}</${tag}>`);
        parts.add(tag === 'ol' && items > 0 ? renumber(piece, items) : piece, '\n\n');
      }
      items += batchItems;
      batch = [];
      batchSize = 0;
      batchItems = 0;
    };
    for (const row of all) {
      const isItem = isElement(row) && tagOf(row) === 'li';
      if (isElement(row) && sizeOf(row) > limit) {
        flush();
        if (isItem) {
          items++;
          parts.add(listItem(row, tag === 'ol' ? `${items}. ` : '- '), '\n\n');
        } else if (tagOf(row) === 'tr') {
          // A row too big for one table piece: its cells as paragraphs (rare, and still readable).
          for (const cell of row.childNodes) if (isElement(cell)) parts.add(convert(cell), '\n\n');
        } else {
          parts.add(convert(row), '\n\n');
        }
        continue;
      }
      batch.push(row === firstRow && header ? '' : row.toString());
      batchSize += sizeOf(row);
      if (isItem) batchItems++;
      if (batchSize >= limit) flush();
    }
    flush();
    return parts.text();
  };

  const listItem = (li: HTMLElement, marker: string): string => {
    const pad = ' '.repeat(marker.length);
    return children(li)
      .split('\n')
      .map((l, i) => (i === 0 ? marker + l : l === '' ? '' : pad + l))
      .join('\n');
  };

  return convert(root);
}

/** Shift the numbers of an ordered list's top-level items (a later piece of a split `<ol>`). */
function renumber(markdown: string, offset: number): string {
  return markdown.replace(/^(\d+)\. /gm, (_, n: string) => `${Number(n) + offset}. `);
}
