import type { Node, Parser } from 'web-tree-sitter';
import { loadGrammar, loadRuntime } from './code-grammars.js';
import { classify, isCommentLike, isTrivialNode, membersOf, type SymbolInfo } from './code-syntax.js';
import { chunkLines } from './lines.js';
import { roleForPath } from './paths.js';
import type { Chunk } from './types.js';
import {
  LineIndex,
  makeChunk,
  packRuns,
  resolveOptions,
  windowRows,
  type ChunkMeta,
  type ChunkOptions,
  type ResolvedOptions,
} from './util.js';

export interface CodeChunkOptions extends ChunkOptions {
  /** Folder holding `tree-sitter-<language>.wasm` files; defaults to the tree-sitter-wasms package. */
  grammarDir?: string;
}

/** Files larger than this are windowed without parsing (generated or minified bundles). */
const MAX_PARSE_CHARS = 2_000_000;
/** A parse running longer than this is cancelled and the file windowed instead. */
const PARSE_BUDGET_MS = 10_000;
/** Symbols that may hold members and so may be split into header + members. */
const CONTAINER_KINDS = new Set(['class', 'interface', 'impl', 'struct', 'enum', 'module', 'test']);
const MAX_DEPTH = 6;

const startRow = (n: Node): number => n.startPosition.row;
/** A node ending at column 0 ends with the previous line's newline. */
const endRow = (n: Node): number => {
  const e = n.endPosition;
  return e.column === 0 && e.row > n.startPosition.row ? e.row - 1 : e.row;
};

interface Label {
  title: string;
  kind: string;
  symbol: string | undefined;
}

/**
 * Labels and units are made only by these two functions, every field set in the same order:
 * objects of one shape, so the optimised code of the functions below does not meet a new one
 * and deoptimise. Literals with optional fields left out and spreads gave the Dioxus create's
 * chunk thread "wrong map" deopts in units, level, emit and merge, and TurboFan compiled each
 * of them three or four times.
 */
const label = (title: string, kind: string, symbol: string | undefined): Label => ({ title, kind, symbol });

/** Rows a..b (0-based, inclusive) of one piece of code; `sym` marks a symbol's own piece. */
interface Unit {
  a: number;
  b: number;
  label: Label;
  sym: (Label & { symbol: string }) | undefined;
  info: SymbolInfo | undefined;
  /** Only imports, comments, attributes and the like: cannot answer anything alone. */
  trivial: boolean;
  /** Exact offsets, for window pieces that may cut inside a very long line. */
  range: [number, number] | undefined;
}

type Seg = Unit;

function unit(
  a: number,
  b: number,
  lab: Label,
  sym: (Label & { symbol: string }) | undefined = undefined,
  info: SymbolInfo | undefined = undefined,
  trivial = false,
  range: [number, number] | undefined = undefined,
): Unit {
  return { a, b, label: lab, sym, info, trivial, range };
}

interface Ctx {
  prefix: string | undefined;
  /** Joins prefix and member names: "." for classes, " > " inside test suites. */
  sep: string | undefined;
  inClass: boolean;
  /** Inside a test block (a describe, a Rust `mod tests`, a Python `class Test…`). */
  inTest: boolean | undefined;
  stmt: Label;
  depth: number;
}

/** Test functions by naming convention, per language. */
function isTestFunction(language: string, path: string, name: string, attrs: string): boolean {
  if (language === 'rust') return /#\[\s*(\w+::)*test\b/.test(attrs);
  if (language === 'python') return /^test/.test(name.slice(name.lastIndexOf('.') + 1));
  if (language === 'go') return /_test\.go$/.test(path) && /^(Test|Benchmark|Fuzz|Example)([A-Z_]|$)/.test(name);
  return false;
}

function isTestContainer(language: string, info: SymbolInfo, attrs: string): boolean {
  if (language === 'rust') return info.kind === 'module' && (info.name === 'tests' || /#\[\s*cfg\s*\(\s*test\s*\)/.test(attrs));
  if (language === 'python') return info.kind === 'class' && /^Test/.test(info.name);
  return false;
}

class TreeChunker {
  readonly chunks: Chunk[] = [];
  /** The file's meta for its test chunks: made once, in the same shape as `meta`. */
  private readonly testMeta: ChunkMeta;
  constructor(
    private readonly idx: LineIndex,
    private readonly meta: ChunkMeta,
    private readonly o: ResolvedOptions,
  ) {
    this.testMeta = { path: meta.path, role: 'test', language: meta.language };
  }

  /**
   * Units covering rows lo..hi: one per symbol (with its leading comments and attributes), one per
   * other statement; rows no node covers (blank lines, closing braces) join the unit before them.
   */
  units(nodes: Node[], lo: number, hi: number, ctx: Ctx): Unit[] {
    const items: Array<{ node: Node; info?: SymbolInfo }> = [];
    const expand = (list: Node[], depth: number): void => {
      for (const n of list) {
        const k = classify(n);
        if (k?.type === 'transparent' && depth < MAX_DEPTH) expand(k.children, depth + 1);
        else items.push({ node: n, info: k?.type === 'symbol' ? k.info : undefined });
      }
    };
    expand(nodes, 0);

    const raw: Unit[] = [];
    let pending: Node[] = [];
    // endRow reads the node's end from the parser's memory: once per node.
    let pendingEnd = -1;
    let lastEnd = -1;
    const flush = (): void => {
      for (const c of pending) raw.push(unit(startRow(c), endRow(c), ctx.stmt, undefined, undefined, true));
      pending = [];
    };
    for (const { node, info } of items) {
      if (!info && isCommentLike(node) && startRow(node) !== lastEnd) {
        if (pending.length && startRow(node) > pendingEnd + 1) flush();
        pending.push(node);
        pendingEnd = endRow(node);
        continue;
      }
      let a = startRow(node);
      const b = endRow(node);
      let attrs = '';
      if (info && pending.length && a <= pendingEnd + 1) {
        a = startRow(pending[0]);
        // A loop, not filter/map/join: filter's result changes shape when empty (a deopt).
        let n = 0;
        for (const p of pending) {
          if (p.type === 'comment' || p.type.includes('comment')) continue;
          attrs = n++ === 0 ? p.text : `${attrs}\n${p.text}`;
        }
        pending = [];
      } else flush();
      if (info) {
        const { language, path } = this.meta;
        const test = info.kind === 'test' || isTestContainer(language, info, attrs) ||
          ((info.kind === 'function' || info.kind === 'method') && (isTestFunction(language, path, info.name, attrs) || (ctx.inTest === true && /#\[/.test(attrs))));
        const sep = ctx.sep ?? '.';
        const symbol = ctx.prefix ? `${ctx.prefix}${sep}${info.name}` : info.name;
        const kind = test ? 'test' : ctx.inClass && info.kind === 'function' ? 'method' : info.kind;
        const title = test
          ? (ctx.prefix ? `${info.title?.split(' ')[0] === 'describe' ? 'describe' : 'test'} ${symbol}` : info.title ?? `test ${symbol}`)
          : info.title && !ctx.prefix ? info.title : `${kind} ${symbol}`;
        const sym = label(title, kind, symbol) as Label & { symbol: string };
        raw.push(unit(a, b, sym, sym, test && info.kind !== 'test' ? { ...info, kind: 'test' } : info));
      } else raw.push(unit(a, b, ctx.stmt, undefined, undefined, isTrivialNode(node)));
      lastEnd = b;
    }
    flush();

    // Siblings can share a row; each row belongs to one unit, and a symbol keeps its first row.
    const out: Unit[] = [];
    let cursor = lo;
    for (const u of raw) {
      u.a = Math.max(u.a, lo);
      u.b = Math.min(u.b, hi);
      const prev = out[out.length - 1];
      if (u.a < cursor && prev) {
        if (u.sym && !prev.sym) {
          if (prev.a < u.a) prev.b = u.a - 1;
          else {
            out.pop();
            u.a = prev.a;
          }
        } else u.a = cursor;
      }
      if (u.a > u.b) continue;
      out.push(u);
      cursor = u.b + 1;
    }
    if (out.length === 0) return [unit(lo, hi, ctx.stmt)];
    out[0].a = lo;
    for (let i = 1; i < out.length; i++) out[i - 1].b = out[i].a - 1;
    out[out.length - 1].b = Math.max(out[out.length - 1].b, hi);
    return out;
  }

  windows(a: number, b: number, lab: Label): Seg[][] {
    const ranges = windowRows(this.idx, a, b, this.o.maxChars);
    return ranges.map(([s, e], i): Seg[] => {
      const title = ranges.length > 1 ? `${lab.title} (part ${i + 1}/${ranges.length})` : lab.title;
      return [unit(this.idx.rowOf(s), this.idx.rowOf(Math.max(s, e - 1)), label(title, lab.kind, lab.symbol), undefined, undefined, false, [s, e])];
    });
  }

  /** A class-like symbol over maxChars: a header chunk, then its members as a level of their own. */
  expand(u: Unit, ctx: Ctx): Seg[][] | undefined {
    if (!u.sym || !u.info || !CONTAINER_KINDS.has(u.sym.kind) || ctx.depth >= MAX_DEPTH) return undefined;
    const members = membersOf(u.info.def);
    if (members.length === 0) return undefined;
    const jsTest = u.info.kind === 'test' && u.sym.kind === 'test' && u.info.def.type !== 'class_definition' && u.info.def.type !== 'mod_item';
    const inner: Ctx = {
      prefix: u.sym.symbol,
      sep: jsTest ? ' > ' : '.',
      inClass: !jsTest,
      inTest: ctx.inTest || u.sym.kind === 'test',
      stmt: label(`${u.sym.title} (body)`, u.sym.kind, u.sym.symbol),
      depth: ctx.depth + 1,
    };
    const lo = Math.min(u.b, Math.max(u.a, startRow(members[0])));
    const units = this.units(members, lo, u.b, inner);
    const k = units.findIndex((x) => x.sym);
    if (k < 0) return undefined;
    const out: Seg[][] = [];
    // The header (doc comment, signature, fields before the first member) is a small chunk of its own.
    const headerEnd = units[k].a - 1;
    if (u.sym.kind === 'test' && headerEnd >= u.a && this.idx.size(u.a, units[k].b) <= this.o.maxChars) {
      // A suite's opening line (and its setup) travels with its first test.
      const x = units[k]!;
      units[k] = unit(u.a, x.b, x.label, x.sym, x.info, x.trivial, x.range);
    } else if (headerEnd >= u.a) {
      if (this.idx.size(u.a, headerEnd) <= this.o.maxChars) out.push([unit(u.a, headerEnd, u.sym, u.sym)]);
      else out.push(...this.windows(u.a, headerEnd, u.sym));
    }
    out.push(...this.level(units.slice(k), inner));
    return out;
  }

  /** Splits what is too big; merges runs of small neighbours of this level into groups. */
  level(units: Unit[], ctx: Ctx): Seg[][] {
    const groups: Seg[][] = [];
    let run: Seg[] = [];
    const flushRun = (): void => {
      groups.push(...this.merge(run));
      run = [];
    };
    for (const u of units) {
      const fits = this.idx.size(u.a, u.b) <= this.o.maxChars;
      if (u.sym?.kind === 'test') {
        // One chunk per test: a test never shares a chunk with its neighbours, and a suite is
        // cut into its tests whatever its size.
        flushRun();
        groups.push(...(this.expand(u, ctx) ?? (fits ? [[u]] : this.windows(u.a, u.b, u.label))));
        continue;
      }
      if (fits) {
        run.push(u);
        continue;
      }
      flushRun();
      groups.push(...(this.expand(u, ctx) ?? this.windows(u.a, u.b, u.label)));
    }
    flushRun();
    this.absorbScraps(groups);
    // A scrap of plain code after a split class or function (a namespace's closing brace, an
    // #endif) joins the chunk before it rather than standing alone.
    for (let i = groups.length - 1; i > 0; i--) {
      const g = groups[i];
      const prev = groups[i - 1];
      const small = this.idx.size(g[0].a, g[g.length - 1].b) < this.o.minChars;
      if (small && !g.some((x) => x.sym) && !prev[0].range && !g[0].range &&
        this.idx.size(prev[0].a, g[g.length - 1].b) <= this.o.maxChars) {
        prev.push(...g);
        groups.splice(i, 1);
      }
    }
    return groups;
  }

  /**
   * No scraps: a group of only imports / comments / attributes, or a small group with no symbol,
   * joins the group after it when it leads (a file's imports and module comment travel with its
   * first item), else the group before it; only when neither fits does it stay alone.
   */
  absorbScraps(groups: Seg[][]): void {
    const { idx, o } = this;
    const span = (g: Seg[]): [number, number] => [g[0].a, g[g.length - 1].b];
    const meaningful = (a: number, b: number): number => {
      let n = 0;
      for (let r = a; r <= b && n < 3; r++) if (!idx.isBlank(r) && !/^\s*[})\];,]*\s*$/.test(idx.line(r))) n++;
      return n;
    };
    const isScrap = (g: Seg[]): boolean => {
      if (g.some((x) => x.range)) return false;
      if (g.every((x) => x.trivial)) return true;
      const [a, b] = span(g);
      return !g.some((x) => x.sym) && (idx.size(a, b) < o.minChars || meaningful(a, b) < 3);
    };
    const fits = (x: Seg[], y: Seg[]): boolean => !x[0].range && !y[0].range && idx.size(Math.min(x[0].a, y[0].a), Math.max(x[x.length - 1].b, y[y.length - 1].b)) <= o.maxChars;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i];
      if (groups.length < 2 || !isScrap(g)) continue;
      const prev = groups[i - 1];
      const next = groups[i + 1];
      const leading = i === 0 || g.every((x) => x.trivial);
      if (leading && next && fits(g, next)) {
        next.unshift(...g);
        groups.splice(i, 1);
        i--;
      } else if (prev && fits(prev, g)) {
        prev.push(...g);
        groups.splice(i, 1);
        i--;
      } else if (next && fits(g, next)) {
        next.unshift(...g);
        groups.splice(i, 1);
        i--;
      }
    }
  }

  /** Small neighbours of one level join into groups of about minChars, never over maxChars. */
  merge(segs: Seg[]): Seg[][] {
    const { idx, o } = this;
    const span = (i: number, j: number): number => idx.size(segs[i].a, segs[j].b);
    return packRuns(segs.length, span, o.minChars, o.maxChars).map(([i, j]) => segs.slice(i, j + 1));
  }

  emit(groups: Seg[][]): void {
    const { idx } = this;
    for (const group of groups) {
      const first = group[0];
      const last = group[group.length - 1];
      const [s, e] = first.range ?? [idx.start(first.a), idx.end(last.b)];
      let lab = first.label;
      // The largest symbol names the chunk; the title lists every symbol in it (a loop: filter
      // and map gave arrays whose shape changed with their length, a deopt).
      let main: Seg | undefined;
      let mainSize = -1;
      let syms = 0;
      let title = '';
      for (const g of group) {
        if (!g.sym) continue;
        const size = idx.size(g.a, g.b);
        if (size > mainSize) {
          main = g;
          mainSize = size;
        }
        if (syms < 4) title = syms === 0 ? g.sym.title : `${title}, ${g.sym.title}`;
        syms++;
      }
      if (main) lab = label(syms > 4 ? `${title} +${syms - 4} more` : title, main.sym!.kind, main.sym!.symbol);
      const test = lab.kind === 'test';
      const c = makeChunk(idx, s, e, test && this.meta.role === 'code' ? this.testMeta : this.meta, lab);
      if (c) this.chunks.push(c);
    }
  }
}

function errorHeavy(root: Node, lineCount: number): boolean {
  if (root.type === 'ERROR') return true;
  if (!root.hasError) return false;
  let rows = 0;
  for (const c of root.namedChildren) if (c && (c.type === 'ERROR' || c.isError)) rows += endRow(c) - startRow(c) + 1;
  return rows * 2 > lineCount;
}

/**
 * Chunks source code by its syntax tree: top-level functions, classes, impls, interfaces, structs,
 * enums, type aliases and function-valued consts, each with its leading comments / decorators /
 * attributes. A class larger than maxChars becomes a header chunk plus its methods (`Class.method`).
 * Imports and other statements between symbols are grouped, so no line is lost; small neighbours
 * merge; a symbol too large on its own is cut into line windows that keep its name. An unknown
 * language, a grammar that does not load, or a file that mostly fails to parse falls back to line
 * windows. Never throws.
 */
export async function chunkCode(path: string, content: string, language: string, opts: CodeChunkOptions = {}): Promise<Chunk[]> {
  if (content.trim() === '') return [];
  const fallback = (): Chunk[] => chunkLines(path, content, opts, { role: roleForPath(path), language });
  if (content.length > MAX_PARSE_CHARS) return fallback();
  let tree: ReturnType<Parser['parse']> = null;
  try {
    const rt = await loadRuntime();
    const lang = await loadGrammar(rt, language, opts.grammarDir);
    if (!lang) return fallback();
    rt.parser.setLanguage(lang);
    const deadline = Date.now() + PARSE_BUDGET_MS;
    tree = rt.parser.parse(content, null, { progressCallback: () => Date.now() > deadline });
    if (!tree) {
      rt.parser.reset();
      return fallback();
    }
    const idx = new LineIndex(content);
    const root = tree.rootNode;
    if (errorHeavy(root, idx.lineCount)) return fallback();
    const o = resolveOptions(opts);
    const tc = new TreeChunker(idx, { path, role: roleForPath(path), language }, o);
    const name = path.slice(path.lastIndexOf('/') + 1);
    // Every field set, in the order expand() sets them: one shape (see `label`).
    const ctx: Ctx = { prefix: undefined, sep: undefined, inClass: false, inTest: undefined, stmt: label(`${name} (top level)`, 'module', undefined), depth: 0 };
    const top = root.namedChildren.filter((c): c is Node => c !== null);
    tc.emit(tc.level(tc.units(top, 0, idx.lineCount - 1, ctx), ctx));
    return tc.chunks.length ? tc.chunks : fallback();
  } catch {
    return fallback();
  } finally {
    tree?.delete();
  }
}
