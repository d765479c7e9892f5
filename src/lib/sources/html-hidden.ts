/**
 * Text a page hides from people. Pages hide plenty for innocent reasons (collapsed menus, icon
 * labels, tab panels), but hidden text is also how a page talks to a model behind its reader's
 * back, so the converter hands it to the injection checks before the hidden elements are dropped.
 * Pure, iterative (pages can be deeply nested), bounded.
 */
import type { HTMLElement } from 'node-html-parser';

import { squash, tagOf, textOf } from './html-dom.js';

/** At most this many hidden texts per page, each cut to MAX_HIDDEN_CHARS. */
export const MAX_HIDDEN_TEXTS = 50;
export const MAX_HIDDEN_CHARS = 2000;

/** Elements whose content is never text a reader or a model sees as prose. */
const NOT_TEXT = new Set(['script', 'style', 'template', 'svg', 'canvas', 'noscript']);

/** Hidden by markup: the `hidden` attribute, aria-hidden, display:none, visibility:hidden. */
export function isHidden(el: HTMLElement): boolean {
  if (el.hasAttribute('hidden')) return true;
  if ((el.getAttribute('aria-hidden') ?? '').toLowerCase() === 'true') return true;
  const style = el.getAttribute('style');
  return style !== undefined && /display\s*:\s*none|visibility\s*:\s*hidden/i.test(style);
}

const WHITE = /^(?:white|#fff|#ffffff|#fffffff?f?|rgba?\(\s*255\s*,\s*255\s*,\s*255\s*(?:,\s*(?:1|1\.0+)\s*)?\))$/i;

function styleValue(style: string, prop: string): string | undefined {
  const m = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*([^;]+)`, 'i').exec(style);
  return m ? m[1]!.replace(/!important/i, '').trim().toLowerCase() : undefined;
}

/**
 * Invisible by inline style while still in the document: zero size or opacity, text the colour
 * of its background (or white on the default white page), pushed off-screen, clipped away.
 * Used for detection only: such text stays in the converted page (it may be a dark theme).
 */
export function isVisuallyHidden(el: HTMLElement): boolean {
  const style = el.getAttribute('style');
  if (!style) return false;
  const fontSize = styleValue(style, 'font-size');
  if (fontSize !== undefined && /^0(?:\.0+)?(?:px|em|rem|pt|%)?$/.test(fontSize)) return true;
  const opacity = styleValue(style, 'opacity');
  if (opacity !== undefined && /^0(?:\.0+)?$/.test(opacity)) return true;
  const color = styleValue(style, 'color');
  const background = styleValue(style, 'background-color') ?? styleValue(style, 'background');
  if (color !== undefined) {
    if (background !== undefined && color === background) return true;
    if (WHITE.test(color) && (background === undefined || WHITE.test(background))) return true;
  }
  if (/(?:^|;)\s*(?:left|top|text-indent|margin-left)\s*:\s*-\d{3,}/i.test(style)) return true;
  if (/clip\s*:\s*rect\(\s*0/i.test(style) || /clip-path\s*:\s*inset\(\s*50%/i.test(style)) return true;
  const zero = (p: string) => /^0(?:px)?$/.test(styleValue(style, p) ?? '');
  return (zero('height') || zero('width') || zero('max-height')) && /overflow\s*:\s*hidden/i.test(style);
}

/**
 * Texts of the outermost hidden or visually hidden elements of a page, in document order,
 * whitespace collapsed, bounded. `elements` is the page's element list in document order.
 */
export function collectHiddenTexts(elements: HTMLElement[]): string[] {
  const out: string[] = [];
  const taken = new Set<HTMLElement>();
  const insideTaken = (el: HTMLElement): boolean => {
    for (let up = el.parentNode as HTMLElement | null; up; up = up.parentNode as HTMLElement | null) if (taken.has(up)) return true;
    return false;
  };
  for (const el of elements) {
    if (out.length >= MAX_HIDDEN_TEXTS) break;
    if (NOT_TEXT.has(tagOf(el))) continue;
    if (!isHidden(el) && !isVisuallyHidden(el)) continue;
    if (insideTaken(el)) continue;
    taken.add(el);
    const text = squash(textOf(el, true, NOT_TEXT));
    if (text.length >= 3) out.push(text.length > MAX_HIDDEN_CHARS ? text.slice(0, MAX_HIDDEN_CHARS) : text);
  }
  return out;
}
