/**
 * What a fetched body is and how it becomes the stored markdown. Pure: bytes and headers in,
 * text out. HTML is converted, markdown and plain text are kept as served, other text formats
 * (JSON, XML, source files) are wrapped in a fenced block, binary is refused.
 */
import { TkomaError } from '../errors.js';
import { htmlToMarkdown } from './html.js';

export type BodyKind = 'html' | 'markdown' | 'text' | 'code' | 'binary';

export interface ContentType {
  mime: string; // lower-case type/subtype, '' when absent
  charset?: string;
}

export function parseContentType(header: string | null | undefined): ContentType {
  if (!header) return { mime: '' };
  const [type = '', ...params] = header.split(';');
  const out: ContentType = { mime: type.trim().toLowerCase() };
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p);
    if (m) out.charset = m[1]!.toLowerCase();
  }
  return out;
}

const TEXT_APPLICATION = new Set([
  'application/json', 'application/xml', 'application/javascript', 'application/x-javascript',
  'application/ecmascript', 'application/toml', 'application/yaml', 'application/x-yaml',
  'application/x-sh', 'application/x-python', 'application/typescript', 'application/graphql',
  'application/sql', 'application/x-tex',
]);

/** Extensions of source and data files, with the fence language used when one is served as text. */
const CODE_EXTENSIONS: Record<string, string> = {
  rs: 'rust', py: 'python', js: 'javascript', mjs: 'javascript', cjs: 'javascript', ts: 'typescript',
  tsx: 'tsx', jsx: 'jsx', go: 'go', java: 'java', kt: 'kotlin', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp',
  hpp: 'cpp', cs: 'csharp', rb: 'ruby', php: 'php', swift: 'swift', scala: 'scala', sh: 'sh',
  bash: 'bash', zsh: 'zsh', toml: 'toml', yaml: 'yaml', yml: 'yaml', json: 'json', xml: 'xml',
  css: 'css', scss: 'scss', sql: 'sql', lua: 'lua', zig: 'zig', ex: 'elixir', exs: 'elixir',
  hs: 'haskell', ml: 'ocaml', dart: 'dart', proto: 'protobuf', graphql: 'graphql', csv: 'csv',
};

const MIME_LANGUAGE: Record<string, string> = {
  'application/json': 'json', 'application/xml': 'xml', 'text/xml': 'xml', 'text/css': 'css',
  'application/javascript': 'javascript', 'text/javascript': 'javascript', 'application/x-javascript': 'javascript',
  'application/toml': 'toml', 'application/yaml': 'yaml', 'application/x-yaml': 'yaml', 'text/yaml': 'yaml',
  'text/csv': 'csv', 'application/x-sh': 'sh', 'application/typescript': 'typescript', 'application/sql': 'sql',
};

function extensionOf(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').pop() ?? '';
    const dot = last.lastIndexOf('.');
    return dot > 0 ? last.slice(dot + 1).toLowerCase() : '';
  } catch {
    return '';
  }
}

function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

function looksHtml(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /<(head|body|title)[\s>]/.test(head);
}

/**
 * Kind of body from its declared type, refined by the URL's extension and, when no type was sent,
 * by the first bytes. Images, PDFs, archives, octet-stream and anything else unknown are binary.
 */
export function classifyBody(ct: ContentType, url: string, bytes?: Uint8Array): BodyKind {
  const kind = declaredKind(ct, url, bytes);
  // A NUL byte in what claims to be text means a mislabelled binary (UTF-16 aside).
  const utf16 = (ct.charset ?? '').startsWith('utf-16') || (bytes !== undefined && (bomCharset(bytes) ?? '').startsWith('utf-16'));
  if (kind !== 'binary' && bytes && !utf16 && looksBinary(bytes)) return 'binary';
  return kind;
}

function declaredKind(ct: ContentType, url: string, bytes?: Uint8Array): BodyKind {
  const { mime } = ct;
  const ext = extensionOf(url);
  if (mime === '') {
    if (bytes && looksHtml(bytes)) return 'html';
    return ext === 'md' || ext === 'markdown' ? 'markdown' : CODE_EXTENSIONS[ext] ? 'code' : 'text';
  }
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'text/markdown' || mime === 'text/x-markdown') return 'markdown';
  if (mime === 'text/plain') {
    if (ext === 'md' || ext === 'markdown') return 'markdown';
    return CODE_EXTENSIONS[ext] ? 'code' : 'text';
  }
  if (mime.startsWith('text/') || TEXT_APPLICATION.has(mime) || /\+(?:xml|json)$/.test(mime)) return 'code';
  return 'binary';
}

const BOMS: [number[], string][] = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

function bomCharset(bytes: Uint8Array): string | undefined {
  for (const [bom, label] of BOMS) if (bom.every((b, i) => bytes[i] === b)) return label;
  return undefined;
}

/** `<meta charset>` or the http-equiv form, looked for in the first 2 KB as browsers do. */
export function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.+-]+)/i.exec(head);
  return m ? m[1]!.toLowerCase() : undefined;
}

function decoderFor(label: string | undefined): TextDecoder {
  try {
    return new TextDecoder(label ?? 'utf-8', { fatal: false });
  } catch {
    return new TextDecoder('utf-8', { fatal: false }); // unknown charset label: UTF-8 is the best guess
  }
}

/** The encoding a label names (WHATWG names: `latin1` → `windows-1252`), undefined when unknown. */
function encodingOf(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** True when the bytes are well-formed UTF-8 (ASCII included). */
function isUtf8(bytes: Uint8Array): boolean {
  try {
    STRICT_UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const hasHighBytes = (bytes: Uint8Array): boolean => bytes.some((b) => b >= 0x80);

export interface CharsetChoice {
  /** The WHATWG encoding name the body is decoded with. */
  encoding: string;
  /** Why: `bom`, `header`, `meta`, `default`, or `utf-8-body` (a label that cannot be right overruled). */
  from: 'bom' | 'header' | 'meta' | 'default' | 'utf-8-body';
  /** The label the server or page gave, when it was overruled or unknown. */
  label?: string;
}

/**
 * The encoding of a body, decided as browsers do and a little further: a byte order mark wins;
 * then a body that is well-formed UTF-8 overrules a label that cannot describe it (UTF-16 without
 * a BOM on a body of single bytes, or a legacy charset on a body whose non-ASCII bytes all form
 * UTF-8 sequences, which text in those charsets practically never does); then the HTTP label,
 * then (HTML) `<meta charset>`, where UTF-16 means UTF-8 as the HTML standard says; else UTF-8.
 */
export function chooseCharset(bytes: Uint8Array, headerCharset: string | undefined, kind: BodyKind): CharsetChoice {
  const bom = bomCharset(bytes);
  if (bom) return { encoding: bom, from: 'bom' };
  const meta = headerCharset === undefined && kind === 'html' ? sniffMetaCharset(bytes) : undefined;
  const label = headerCharset ?? meta;
  if (label === undefined) return { encoding: 'utf-8', from: 'default' };
  const named = encodingOf(label);
  if (named === undefined) return { encoding: 'utf-8', from: 'default', label };
  if (named === 'utf-8') return { encoding: named, from: headerCharset !== undefined ? 'header' : 'meta' };
  const utf16 = named.startsWith('utf-16');
  // A meta tag is read from bytes already decoded as ASCII-compatible: UTF-16 there is a mistake.
  if (utf16 && meta !== undefined) return { encoding: 'utf-8', from: 'meta', label };
  if ((utf16 || hasHighBytes(bytes)) && isUtf8(bytes)) {
    // UTF-16 of markup has a NUL byte in every ASCII character; a body with none is not UTF-16.
    if (!utf16 || !bytes.subarray(0, 4096).includes(0)) return { encoding: 'utf-8', from: 'utf-8-body', label };
  }
  return { encoding: named, from: headerCharset !== undefined ? 'header' : 'meta' };
}

/**
 * Decode as chooseCharset decides (invalid bytes become U+FFFD); refuses text the declared charset
 * turns to garbage (assertDecoded).
 */
export function decodeBody(bytes: Uint8Array, ct: ContentType, kind: BodyKind, url = ''): string {
  const choice = chooseCharset(bytes, ct.charset, kind);
  const text = decoderFor(choice.encoding).decode(bytes);
  assertDecoded(bytes, text, kind, choice, url);
  return text;
}

/**
 * Refuses a body that the chosen encoding turned into something else than text: the bytes hold
 * `<` (HTML) or a newline (other text) but the decoded text does not. Only UTF-16 read from
 * single-byte text does that, giving CJK-looking garbage with no U+FFFD to count. The error
 * (UNDECODABLE_TEXT) names the encoding, so the operator knows the server lies about its charset.
 */
export function assertDecoded(bytes: Uint8Array, text: string, kind: BodyKind, choice: CharsetChoice, url: string): void {
  const probe = kind === 'html' ? '<' : '\n';
  if (!bytes.subarray(0, 4096).includes(probe.charCodeAt(0))) return;
  if (text.slice(0, 4096).includes(probe)) return;
  throw new TkomaError('UNDECODABLE_TEXT', `${url} does not decode as ${choice.encoding} (its declared charset): the text would be garbage.`, {
    url,
    encoding: choice.encoding,
    ...(choice.label ? { label: choice.label } : {}),
  });
}

function fenced(text: string, lang: string): string {
  let longest = 2;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n+$/, '')}\n${fence}\n`;
}

function fileNameOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || '') || url;
  } catch {
    return url;
  }
}

export interface StoredBody {
  markdown: string;
  title?: string;
  /** HTML only: texts the page hides from people, for the injection checks. */
  hidden?: string[];
  /** HTML only, when asked: every link target (absolute) and the canonical URL. */
  links?: string[];
  canonical?: string;
}

/**
 * The markdown stored for a fetched body. `url` is where the body came from (after redirects):
 * links resolve against it. Throws EMPTY_FETCH when nothing readable is left (for example a
 * page that only renders with JavaScript).
 */
export function bodyToMarkdown(text: string, kind: BodyKind, ct: ContentType, url: string, links = false): StoredBody {
  let out: StoredBody;
  if (kind === 'html') {
    out = htmlToMarkdown(text, url, links);
    const onlyTitle = out.title !== undefined && out.markdown.trim() === `# ${out.title}`;
    if (out.markdown.trim() === '' || onlyTitle) {
      throw new TkomaError('EMPTY_FETCH', `No readable content in ${url} (it may need JavaScript to render).`, {
        url,
        ...(out.title ? { title: out.title } : {}),
      });
    }
    return out;
  }
  if (text.trim() === '') throw new TkomaError('EMPTY_FETCH', `${url} returned an empty document.`, { url });
  if (kind === 'markdown') {
    const h1 = /^#[ \t]+(.+?)[ \t#]*$/m.exec(text)?.[1];
    out = h1 ? { markdown: text, title: h1 } : { markdown: text };
  } else if (kind === 'code') {
    const name = fileNameOf(url);
    const lang = CODE_EXTENSIONS[extensionOf(url)] ?? MIME_LANGUAGE[ct.mime] ?? '';
    out = { markdown: `# ${name}\n\n${fenced(text, lang)}`, title: name };
  } else {
    out = { markdown: text };
  }
  return out;
}
