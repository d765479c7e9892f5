/**
 * node-html-markdown is quadratic in its output size (it re-slices the growing result string on
 * every append: a 350 KB page took 8 s, measured), so a big page is cut into pieces at block
 * boundaries, each converted on its own and joined with a blank line. Markdown blocks do not
 * depend on their neighbours, so the joined result reads like a single conversion.
 */
import type { HTMLElement, Node } from 'node-html-parser';
import { isElement, isText, tagOf } from './html-dom.js';

/** Containers with no markdown of their own: their children can be converted separately. */
const NEUTRAL = new Set(['', 'html', 'body', 'main', 'article', 'section', 'div', 'span', 'center', 'font', 'header', 'figure', 'form']);

/** Elements that end a markdown block, so a piece may end right after them. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'figure', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'header', 'hr', 'main', 'ol', 'p', 'pre', 'section', 'table', 'ul',
]);

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
    let n = 2 * tagOf(el).length + 5;
    for (const kid of el.childNodes) n += isText(kid) ? kid.rawText.length : (size.get(kid) ?? 0);
    size.set(el, n);
  }
  return size;
}

/** Split root's HTML into pieces of about `limit` characters, cutting only between blocks. */
export function splitForConversion(root: HTMLElement, limit: number): string[] {
  const size = sizes(root);
  const sizeOf = (n: Node) => (isText(n) ? n.rawText.length : (size.get(n) ?? 0));
  const pieces: string[] = [];

  const visit = (el: HTMLElement): void => {
    const tag = tagOf(el);
    if (sizeOf(el) <= limit) {
      pieces.push(el.toString());
    } else if (NEUTRAL.has(tag)) {
      splitChildren(el);
    } else if (tag === 'ul' || tag === 'table') {
      splitRows(el);
    } else {
      pieces.push(el.toString()); // one big paragraph, list or quote: convert as a whole
    }
  };

  const splitChildren = (el: HTMLElement): void => {
    let batch: string[] = [];
    let batchSize = 0;
    const flush = () => {
      if (batch.length > 0) pieces.push(batch.join(''));
      batch = [];
      batchSize = 0;
    };
    for (const kid of el.childNodes) {
      const isBlock = isElement(kid) && BLOCKS.has(tagOf(kid));
      if (isBlock && sizeOf(kid) > limit) {
        flush();
        visit(kid as HTMLElement);
        continue;
      }
      batch.push(kid.toString());
      batchSize += sizeOf(kid);
      if (isBlock && batchSize >= limit) flush();
    }
    flush();
  };

  /** A long list or table becomes several shorter ones; tables repeat their header row. */
  const splitRows = (el: HTMLElement): void => {
    const tag = tagOf(el);
    const rows: Node[] = [];
    const collect = (parent: HTMLElement) => {
      for (const kid of parent.childNodes) {
        if (isElement(kid) && ['thead', 'tbody', 'tfoot'].includes(tagOf(kid))) collect(kid);
        else if (!isText(kid) || kid.rawText.trim() !== '') rows.push(kid);
      }
    };
    collect(el);
    const firstRow = rows.find((r) => isElement(r) && tagOf(r) === 'tr');
    const header = tag === 'table' && firstRow ? firstRow.toString() : '';
    let batch: string[] = [];
    let batchSize = 0;
    for (const row of rows) {
      batch.push(row === firstRow && header ? '' : row.toString());
      batchSize += sizeOf(row);
      if (batchSize >= limit) {
        pieces.push(`<${tag}>${header}${batch.join('')}</${tag}>`);
        batch = [];
        batchSize = 0;
      }
    }
    if (batch.some((b) => b !== '')) pieces.push(`<${tag}>${header}${batch.join('')}</${tag}>`);
  };

  visit(root);
  return pieces;
}
