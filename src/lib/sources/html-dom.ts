/**
 * Small, iterative DOM helpers over node-html-parser trees. node-html-parser's own getters
 * (text, toString, querySelector) recurse and overflow the stack on deeply nested HTML, so
 * everything that may see an untrusted, unbounded tree walks it with an explicit stack.
 */
import { HTMLElement, NodeType, TextNode, type Node } from 'node-html-parser';

/** Elements whose boundaries separate lines of text when a subtree is flattened to text. */
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr',
  'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tr', 'ul',
]);

export function isElement(node: Node): node is HTMLElement {
  return node.nodeType === NodeType.ELEMENT_NODE;
}

export function isText(node: Node): node is TextNode {
  return node.nodeType === NodeType.TEXT_NODE;
}

/** Lower-case tag name, '' for the parser's root node. */
export function tagOf(el: HTMLElement): string {
  return (el.rawTagName ?? '').toLowerCase();
}

/** All elements under root (root included), in document order. */
export function allElements(root: HTMLElement): HTMLElement[] {
  const out: HTMLElement[] = [];
  const stack: HTMLElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    out.push(el);
    const kids = el.childNodes;
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i]!;
      if (isElement(kid)) stack.push(kid);
    }
  }
  return out;
}

/** First element in document order that satisfies the predicate. */
export function findFirst(root: HTMLElement, pred: (el: HTMLElement) => boolean): HTMLElement | undefined {
  const stack: HTMLElement[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (pred(el)) return el;
    const kids = el.childNodes;
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i]!;
      if (isElement(kid)) stack.push(kid);
    }
  }
  return undefined;
}

/** True when a strict descendant of el has one of the tags. */
export function hasDescendantTag(el: HTMLElement, tags: ReadonlySet<string>): boolean {
  return findFirst(el, (d) => d !== el && tags.has(tagOf(d))) !== undefined;
}

/**
 * Text of a subtree with entities decoded. `<br>` becomes a newline; with `blocks`, block
 * element boundaries become newlines too (used when a deep subtree is collapsed to text).
 */
export function textOf(root: HTMLElement, blocks = false, skipTags?: ReadonlySet<string>): string {
  const parts: string[] = [];
  // Items are nodes to visit or literal strings to emit after a block element's children.
  const stack: (Node | string)[] = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      parts.push(item);
      continue;
    }
    if (isText(item)) {
      parts.push(item.text);
      continue;
    }
    if (!isElement(item)) continue;
    const tag = tagOf(item);
    if (skipTags?.has(tag) && item !== root) continue;
    if (tag === 'br') {
      parts.push('\n');
      continue;
    }
    const isBlock = blocks && BLOCK_TAGS.has(tag);
    if (isBlock) {
      parts.push('\n');
      stack.push('\n');
    }
    const kids = item.childNodes;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return parts.join('');
}

/** Number of non-whitespace characters of text in a subtree: a cheap "how much content" measure. */
export function textWeight(root: HTMLElement): number {
  let n = 0;
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) {
      const raw = node.rawText;
      // Counting in place: this runs over the whole page, allocation-free is measurably faster.
      for (let i = 0; i < raw.length; i++) if (raw.charCodeAt(i) > 32) n++;
    } else if (isElement(node)) {
      for (const kid of node.childNodes) stack.push(kid);
    }
  }
  return n;
}

/**
 * Replace every element deeper than maxDepth by its plain text, so that later recursive code
 * (node-html-parser getters, node-html-markdown's visitor) stays far from the stack limit.
 * Returns how many subtrees were collapsed.
 */
export function capDepth(root: HTMLElement, maxDepth: number): number {
  let collapsed = 0;
  const stack: [HTMLElement, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [el, depth] = stack.pop()!;
    const kids = el.childNodes;
    if (depth >= maxDepth && kids.some(isElement)) {
      const text = textOf(el, true).replace(/\n{3,}/g, '\n\n');
      el.set_content([new TextNode(escapeHtml(text), el)]);
      collapsed++;
      continue;
    }
    for (const kid of kids) if (isElement(kid)) stack.push([kid, depth + 1]);
  }
  return collapsed;
}

/**
 * Detach many nodes at once. node-html-parser's remove() filters the parent's child list per
 * call, which is quadratic when thousands of siblings go; this filters each parent once.
 */
export function removeAll(nodes: Iterable<Node>): void {
  const byParent = new Map<HTMLElement, Set<Node>>();
  for (const node of nodes) {
    const parent = node.parentNode;
    if (!parent) continue;
    let set = byParent.get(parent);
    if (!set) byParent.set(parent, (set = new Set()));
    set.add(node);
  }
  for (const [parent, set] of byParent) parent.childNodes = parent.childNodes.filter((n) => !set.has(n));
}

/** Class tokens of an element, lower-cased. */
export function classTokens(el: HTMLElement): string[] {
  const cls = el.getAttribute('class');
  return cls ? cls.toLowerCase().split(/\s+/).filter(Boolean) : [];
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Collapse runs of whitespace and trim: for titles and headings. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
