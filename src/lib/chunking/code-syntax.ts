/**
 * What the syntax trees of the supported grammars mean for chunking: which nodes are symbols
 * (and of what kind and name), which are transparent containers (namespaces, #ifdef blocks)
 * whose children are looked at instead, and which children of a class are its members.
 * Only types are imported from web-tree-sitter, so loading this file loads no grammar runtime.
 */
import type { Node } from 'web-tree-sitter';

export interface SymbolInfo {
  /** function | method | class | interface | impl | struct | enum | type | module */
  kind: string;
  /** Bare name ("parseConfig"); Go methods and C++ out-of-class definitions carry their type ("Foo.bar"). */
  name: string;
  /**
   * Display title when "<kind> <name>" would say less (e.g. "impl Display for Point"). Always
   * set, if only to undefined: one object shape for code.ts's optimised functions.
   */
  title: string | undefined;
  /** The definition node itself (inside export / decorator / template wrappers). */
  def: Node;
}

export type Classification =
  | { type: 'symbol'; info: SymbolInfo }
  | { type: 'transparent'; children: Node[] }
  | undefined;

const FUNCTION_TYPES = new Set([
  'function_declaration', 'function_definition', 'function_item', 'generator_function_declaration',
  'method_declaration', 'method_definition', 'method', 'singleton_method', 'constructor_declaration',
  'destructor_declaration', 'operator_declaration', 'conversion_operator_declaration',
  'function_signature_item', 'macro_definition', 'init_declaration', 'deinit_declaration',
  'secondary_constructor', 'protocol_function_declaration', 'abstract_method_signature',
  'method_signature',
]);

const TYPE_KIND: Record<string, string> = {
  class_declaration: 'class', class_definition: 'class', class_specifier: 'class', class: 'class',
  abstract_class_declaration: 'class', object_declaration: 'class', object_definition: 'class',
  companion_object: 'class', record_declaration: 'class', record_struct_declaration: 'struct',
  trait_declaration: 'class',
  interface_declaration: 'interface', protocol_declaration: 'interface', trait_item: 'interface',
  trait_definition: 'interface', annotation_type_declaration: 'interface',
  struct_item: 'struct', struct_specifier: 'struct', struct_declaration: 'struct', union_item: 'struct',
  union_specifier: 'struct',
  enum_item: 'enum', enum_declaration: 'enum', enum_specifier: 'enum',
  impl_item: 'impl',
  module: 'module', mod_item: 'module', internal_module: 'module',
  type_alias_declaration: 'type', type_item: 'type', type_alias: 'type', type_definition: 'type',
  delegate_declaration: 'type', typealias_declaration: 'type',
};

/** C-family specifiers are symbols only when they define a body, not when they merely name a type. */
const NEEDS_BODY = new Set(['class_specifier', 'struct_specifier', 'union_specifier', 'enum_specifier']);

/** Keywords that refine a generic class_declaration (Kotlin, Swift). */
const KEYWORD_KIND: Record<string, string> = {
  interface: 'interface', protocol: 'interface', struct: 'struct', enum: 'enum', extension: 'impl',
};

const TRANSPARENT = new Set([
  'namespace_declaration', 'namespace_definition', 'file_scoped_namespace_declaration',
  'linkage_specification', 'preproc_ifdef', 'preproc_if', 'preproc_else', 'preproc_elif',
  'preproc_elifdef', 'enum_body_declarations', 'singleton_class',
]);

/** Bodies whose children are flattened into the parent's list. */
const FLATTEN = new Set(['declaration_list', 'compound_statement', 'body_statement', 'statement_block']);

const BODY_TYPES = new Set([
  'class_body', 'declaration_list', 'field_declaration_list', 'body_statement', 'interface_body',
  'enum_body', 'enum_class_body', 'block', 'statement_block', 'template_body', 'protocol_body',
  'object_type', 'enum_declaration_list', 'enum_member_declaration_list',
]);

const NAME_TYPES = new Set([
  'identifier', 'type_identifier', 'property_identifier', 'field_identifier', 'constant', 'name',
  'simple_identifier', 'word', 'qualified_identifier', 'scoped_identifier', 'destructor_name',
  'operator_name', 'namespace_identifier', 'private_property_identifier', 'scoped_type_identifier',
  'template_function', 'template_type', 'generic_type', 'user_type', 'string',
]);

const FUNCTION_VALUES = new Set([
  'arrow_function', 'function_expression', 'function', 'generator_function', 'class', 'class_expression',
]);

const TRIVIAL_TYPES = new Set([
  'import_statement', 'import_declaration', 'import_from_statement', 'future_import_statement',
  'use_declaration', 'extern_crate_declaration', 'package_clause', 'package_declaration',
  'preproc_include', 'using_directive', 'namespace_use_declaration', 'inner_attribute_item',
  'hash_bang_line', 'import_list',
]);

/**
 * Statements that cannot answer anything on their own: imports, `use`, package lines, comments,
 * attributes, `'use strict'`, `const x = require('x')`, a body-less `mod x;`.
 */
export function isTrivialNode(node: Node): boolean {
  // `type` is a call into the parser's memory on every read: read it once.
  const t = node.type;
  if (isCommentType(t) || TRIVIAL_TYPES.has(t)) return true;
  if (t === 'mod_item' && !node.childForFieldName('body')) return true;
  if (t === 'expression_statement' && /^\s*['"]use strict['"];?\s*$/.test(node.text)) return true;
  if ((t === 'lexical_declaration' || t === 'variable_declaration') &&
    /^\s*(const|let|var)\s+[^=]+=\s*require\(\s*['"][^'"]+['"]\s*\)(\.[\w$]+)*\s*[;,]?\s*$/.test(node.text)) return true;
  return false;
}

export function isCommentLike(node: Node): boolean {
  return isCommentType(node.type);
}

function isCommentType(t: string): boolean {
  return t.includes('comment') || t === 'attribute_item' || t === 'decorator';
}

/** Readable symbol name: generics dropped, `::` / `:` / `->` separators become dots. */
export function cleanName(text: string): string {
  let t = text.replace(/\s+/g, ' ').trim();
  for (let prev = ''; prev !== t; ) {
    prev = t;
    t = t.replace(/<[^<>]*>/g, '');
  }
  t = t.replace(/^['"`]|['"`]$/g, '').replace(/\s*(::|->|:)\s*/g, '.').replace(/^[*&]+/, '');
  return t.length > 120 ? `${t.slice(0, 117)}...` : t;
}

/** The node naming a C-family declarator chain (pointer -> function -> identifier). */
function declaratorName(node: Node): Node | undefined {
  let d = node.childForFieldName('declarator');
  for (let guard = 0; d && guard < 12; guard++) {
    if (NAME_TYPES.has(d.type)) return d;
    const inner: Node | null = d.childForFieldName('declarator') ?? d.namedChildren.find((c) => c !== null && (c.type.endsWith('declarator') || NAME_TYPES.has(c.type))) ?? null;
    d = inner;
  }
  return undefined;
}

export function nameOf(node: Node): string | undefined {
  const n = node.childForFieldName('name') ?? declaratorName(node) ?? node.childForFieldName('property');
  if (n) return cleanName(n.text);
  for (const c of node.namedChildren) if (c && NAME_TYPES.has(c.type)) return cleanName(c.text);
  return undefined;
}

function refineKind(node: Node, kind: string): string {
  if (node.type !== 'class_declaration') return kind;
  for (const c of node.children) if (c && !c.isNamed && KEYWORD_KIND[c.type]) return KEYWORD_KIND[c.type];
  return kind;
}

/** Go: `type X struct {…}` and friends; the spec decides the kind. */
function goType(node: Node): SymbolInfo | undefined {
  const spec = node.namedChildren.find((c) => c !== null && (c.type === 'type_spec' || c.type === 'type_alias'));
  const name = spec && nameOf(spec);
  if (!spec || !name) return undefined;
  const t = spec.childForFieldName('type')?.type;
  const kind = t === 'struct_type' ? 'struct' : t === 'interface_type' ? 'interface' : 'type';
  return { kind, name, title: undefined, def: node };
}

/** Go methods are named by receiver type: `func (h *Handler) ServeHTTP` is Handler.ServeHTTP. */
function goMethod(node: Node): SymbolInfo | undefined {
  const name = nameOf(node);
  if (!name) return undefined;
  const recv = node.childForFieldName('receiver');
  const type = recv?.descendantsOfType('type_identifier')[0]?.text;
  return { kind: 'method', name: type ? `${type}.${name}` : name, title: undefined, def: node };
}

function rustImpl(node: Node): SymbolInfo | undefined {
  const type = node.childForFieldName('type');
  if (!type) return undefined;
  const trait = node.childForFieldName('trait');
  const name = cleanName(type.text);
  // The title keeps the source spelling (`impl fmt::Display for Point`); the symbol is the bare type.
  const shown = (n: Node): string => n.text.replace(/\s+/g, ' ').trim();
  const title = trait ? `impl ${shown(trait)} for ${shown(type)}` : `impl ${shown(type)}`;
  return { kind: 'impl', name, title, def: node };
}

/** `const f = () => …`, `let C = class {…}`: the first declarator decides. */
function jsBinding(node: Node): SymbolInfo | undefined {
  const decl = node.namedChildren.find((c) => c !== null && c.type === 'variable_declarator');
  const value = decl?.childForFieldName('value');
  if (!decl || !value || !FUNCTION_VALUES.has(value.type)) return undefined;
  const name = nameOf(decl);
  if (!name) return undefined;
  return { kind: value.type.startsWith('class') ? 'class' : 'function', name, title: undefined, def: node };
}

/** CommonJS: `exports.f = function…`, `Foo.prototype.bar = function…`. */
function jsAssignment(node: Node): SymbolInfo | undefined {
  const asg = node.namedChildren.find((c) => c !== null && c.type === 'assignment_expression');
  const left = asg?.childForFieldName('left');
  const right = asg?.childForFieldName('right');
  if (!asg || !left || !right || !FUNCTION_VALUES.has(right.type)) return undefined;
  let name = left.text.replace(/^(module\.)?exports\.?/, '').replace(/\.prototype\./, '.');
  if (!name) name = (right.childForFieldName('name')?.text ?? 'module.exports');
  const kind = right.type.startsWith('class') ? 'class' : left.text.includes('.prototype.') ? 'method' : 'function';
  return { kind, name: cleanName(name), title: undefined, def: node };
}

/** Test-runner calls: describe/it/test (jest, vitest, mocha, node:test), tape's t.test, suite/context. */
const TEST_CALLEES = /^(describe|context|suite|it|test|specify|bench|t|st|tt)$/;
const TEST_MODIFIERS = /^(only|skip|todo|each|concurrent|failing|sequential|serial|fails|runIf|skipIf)$/;
const STRING_TYPES = new Set(['string', 'template_string']);

/** `describe('name', () => {…})`, `it.only("…", async function () {…})`, `t.test('…', (st) => {…})`. */
function jsTestCall(node: Node): SymbolInfo | undefined {
  let call = node.namedChildren.find((c) => c !== null && c.type === 'call_expression');
  if (!call) {
    // `await t.test(...)`
    const aw = node.namedChildren.find((c) => c !== null && c.type === 'await_expression');
    call = aw?.namedChildren.find((c) => c !== null && c.type === 'call_expression');
  }
  if (!call) return undefined;
  let callee = call.childForFieldName('function');
  // it.each(table)('name', fn): look through the inner call.
  if (callee?.type === 'call_expression') callee = callee.childForFieldName('function');
  if (!callee) return undefined;
  const parts = callee.text.split('.');
  const known = parts[0] === 'test' || parts[0] === 'it' || parts[0] === 'describe' || parts[0] === 'context' || parts[0] === 'suite' || parts[0] === 'specify' || parts[0] === 'bench'
    ? parts.slice(1).every((p) => TEST_MODIFIERS.test(p))
    : parts.length === 2 && TEST_CALLEES.test(parts[0]!) && /^(test|it|describe)$/.test(parts[1]!);
  if (!known) return undefined;
  const args = call.childForFieldName('arguments')?.namedChildren.filter((c): c is Node => c !== null) ?? [];
  const title = args[0];
  const fn = args.find((a) => FUNCTION_VALUES.has(a.type));
  if (!title || !STRING_TYPES.has(title.type) || !fn) return undefined;
  const raw = title.text.replace(/^['"`]|['"`]$/g, '').replace(/\s+/g, ' ').trim() || '(unnamed)';
  const name = raw.length > 120 ? `${raw.slice(0, 117)}...` : raw;
  const suite = /^(describe|context|suite)$/.test(parts[0]!) || parts[parts.length - 1] === 'describe';
  return { kind: 'test', name, title: `${suite ? 'describe' : 'test'} ${name}`, def: fn };
}

function firstSymbol(nodes: Array<Node | null>): SymbolInfo | undefined {
  for (const c of nodes) {
    if (!c) continue;
    const k = classify(c);
    if (k?.type === 'symbol') return k.info;
  }
  return undefined;
}

/** Children of a transparent container, with its body flattened in place. */
function transparentChildren(node: Node): Node[] {
  const out: Node[] = [];
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (FLATTEN.has(c.type)) out.push(...c.namedChildren.filter((x): x is Node => x !== null));
    else out.push(c);
  }
  return out;
}

/** Decides what one node is for chunking. Wrapped definitions report the inner definition. */
export function classify(node: Node): Classification {
  const t = node.type;
  if (TRANSPARENT.has(t)) {
    // A namespace without a body (PHP `namespace A;`) is a plain statement.
    if ((t === 'namespace_definition' || t === 'namespace_declaration') && !node.childForFieldName('body')) return undefined;
    return { type: 'transparent', children: transparentChildren(node) };
  }
  let info: SymbolInfo | undefined;
  switch (t) {
    case 'export_statement':
    case 'ambient_declaration':
    case 'template_declaration':
      info = firstSymbol([node.childForFieldName('declaration'), ...node.namedChildren]);
      if (!info && t === 'export_statement') {
        const v = node.childForFieldName('value');
        if (v && FUNCTION_VALUES.has(v.type)) info = { kind: v.type.startsWith('class') ? 'class' : 'function', name: nameOf(v) ?? 'default', title: undefined, def: v };
      }
      break;
    case 'decorated_definition':
      info = firstSymbol([node.childForFieldName('definition')]);
      break;
    case 'expression_statement':
      info = firstSymbol(node.namedChildren.filter((c) => c?.type === 'internal_module')) ?? jsAssignment(node) ?? jsTestCall(node);
      break;
    case 'lexical_declaration':
    case 'variable_declaration':
      info = jsBinding(node);
      break;
    case 'public_field_definition':
    case 'field_definition': {
      const v = node.childForFieldName('value');
      const name = nameOf(node);
      if (v && name && FUNCTION_VALUES.has(v.type)) info = { kind: 'function', name, title: undefined, def: node };
      break;
    }
    case 'property_signature': {
      // `readonly get: (key: string) => V;` in an interface is a method in all but syntax.
      const type = node.childForFieldName('type');
      const name = nameOf(node);
      if (name && type?.namedChildren.some((c) => c?.type === 'function_type')) info = { kind: 'function', name, title: undefined, def: node };
      break;
    }
    case 'type_declaration':
      info = goType(node);
      break;
    case 'impl_item':
      info = rustImpl(node);
      break;
    case 'method_declaration':
      if (node.childForFieldName('receiver')) info = goMethod(node);
      break;
    case 'type_definition': {
      // C typedef: named by its declarator; a struct/enum body makes it that kind.
      const name = node.childForFieldName('declarator')?.text;
      const inner = node.childForFieldName('type');
      const kind = inner?.childForFieldName('body') ? (TYPE_KIND[inner.type] ?? 'type') : 'type';
      if (name) info = { kind, name: cleanName(name), title: undefined, def: node };
      break;
    }
  }
  if (!info) {
    if (NEEDS_BODY.has(t) && !node.childForFieldName('body')) return undefined;
    const kind = FUNCTION_TYPES.has(t) ? 'function' : TYPE_KIND[t];
    if (kind) {
      const name = nameOf(node) ?? (kind === 'function' ? '(anonymous)' : undefined);
      if (name !== undefined) {
        const qualified = kind === 'function' && name.includes('.') && declaratorName(node) !== undefined;
        info = { kind: qualified ? 'method' : refineKind(node, kind), name, title: undefined, def: node };
      }
    }
  }
  return info ? { type: 'symbol', info } : undefined;
}

/** The node whose children are a class-like symbol's members, if it has one. */
export function bodyOf(def: Node): Node | undefined {
  const b = def.childForFieldName('body');
  if (b) return b;
  for (const c of def.namedChildren) if (c && BODY_TYPES.has(c.type)) return c;
  // `export const C = class {…}`: look through the declarator's value.
  if (def.type === 'lexical_declaration' || def.type === 'variable_declaration') {
    const v = def.namedChildren.find((c) => c?.type === 'variable_declarator')?.childForFieldName('value');
    if (v) return bodyOf(v);
  }
  return undefined;
}

/** Members of a class-like definition: its body's children plus comments between header and body. */
export function membersOf(def: Node): Node[] {
  const body = bodyOf(def);
  if (!body) return [];
  const out: Node[] = [];
  for (const c of def.namedChildren) {
    if (!c) continue;
    if (c.id === body.id) out.push(...body.namedChildren.filter((x): x is Node => x !== null));
    else if (isCommentLike(c) && c.startPosition.row > def.startPosition.row && c.startIndex > (def.childForFieldName('name')?.endIndex ?? 0)) out.push(c);
  }
  if (out.length === 0 && body.id !== def.id && !def.namedChildren.some((c) => c?.id === body.id)) {
    out.push(...body.namedChildren.filter((x): x is Node => x !== null));
  }
  return out;
}
