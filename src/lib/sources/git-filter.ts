/**
 * Which repository files are worth keeping as reference material, and what language a file is.
 * Pure functions: the same rules serve the metadata probe (names and sizes only) and the fetch
 * (which also sees the first bytes of each file).
 */

import type { LinguistMarks } from './git-attributes.js';

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/** How many leading bytes binary detection looks at (git itself looks at 8,000). */
export const BINARY_SNIFF_BYTES = 8192;

export type SkipReason =
  | 'binary'
  | 'lockfile'
  | 'node_modules'
  | 'vendored'
  | 'generated'
  | 'too_large'
  | 'vcs'
  | 'symlink';

export interface SkipOptions {
  maxFileBytes?: number;
  /** The caller saw (via lstat or the tree mode) that this entry is a symbolic link. */
  isSymlink?: boolean;
  /**
   * The repository's build-output folders (outputFolders of its whole file list). Without it the
   * rule sees only this one path: an output-folder name at the root, holding no source file.
   */
  outputDirs?: ReadonlySet<string>;
  /**
   * The user named this file in `paths`, or a folder inside a skipped area (`dist/`,
   * `node_modules/x/`): the evidence rules (vendored, node_modules, generated, lockfile) give way.
   * Binary, symlink, VCS and size rules never do.
   */
  requested?: boolean;
  /**
   * What the repository's `.gitattributes` say about this path (git-attributes.ts): a mark skips
   * it as generated or vendored; an explicit un-mark keeps it against the name and content rules
   * of that kind.
   */
  marks?: LinguistMarks;
}

const VCS_DIRS = new Set(['.git', '.hg', '.svn']);
/**
 * Git's own control files. Inside a topic folder they would act on the knowledge root's
 * repository: a fetched `.gitignore` could keep fetched files out of its commits, a
 * `.gitattributes` could route them through filters (LFS, eol) configured on the machine.
 */
const GIT_CONTROL_FILES = new Set(['.gitignore', '.gitattributes', '.gitmodules', '.git']);
const VENDOR_DIRS = new Set(['vendor', 'third_party', 'third-party', 'bower_components', '.yarn']);
const GENERATED_DIRS = new Set(['dist', 'build', 'target', 'out', 'coverage']);
/**
 * Files that make their folder a package root: a build tool writes its output folder beside one
 * of these (or at the repository root).
 */
const PACKAGE_MANIFESTS = new Set([
  'package.json',
  'cargo.toml',
  'go.mod',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'composer.json',
  'gemfile',
  'mix.exs',
  'pubspec.yaml',
  'deno.json',
  'cmakelists.txt',
  'package.swift',
]);
/**
 * Hand-written source, never what a build writes: a folder named `build`/`out`/… holding one of
 * these is source of its own (Rust build modules, Go commands, build scripts), not output. JS and
 * CSS are absent on purpose: they are what bundlers emit. `.d.ts` is emitted too (see isSource).
 */
const SOURCE_EXTENSIONS = new Set(
  'rs go py pyi java kt kts scala swift c h cc cpp cxx hpp hh hxx cs fs rb php lua dart ex exs erl hs ml mli clj zig nim jl ts tsx mts cts vue svelte elm gleam sol'.split(' '),
);

const DECLARATIONS = /\.d\.[mc]?ts$/;

function isSource(name: string): boolean {
  const lower = name.toLowerCase();
  if (DECLARATIONS.test(lower)) return false;
  return SOURCE_EXTENSIONS.has(extensionOf(lower)) || PACKAGE_MANIFESTS.has(lower);
}

/**
 * The build-output folders of a repository, from its whole file list: a folder named like an
 * output folder (dist, build, target, out, coverage) that sits at a package root (the repository
 * root, or a folder holding a package manifest), holds no source files of its own, and has
 * something it was built from: code in its package outside the output folders. So a root `dist/`
 * of bundles beside `src/` is output, while `packages/cli/src/build/` (below src/, no manifest
 * beside it), a root `build/` of Go or Python scripts, or the `dist/` of a repository whose only
 * code it is (a published package committed as it was installed) is kept. Pure.
 */
export function outputFolders(paths: Iterable<string>): Set<string> {
  const all = [...paths];
  const { roots, candidates } = outputFolderCandidates(all);
  const built = packagesWithCodeOutside(all, roots, new Set(candidates.keys()));
  const packageOf = (folder: string): string => folder.slice(0, Math.max(0, folder.lastIndexOf('/')));
  return new Set([...candidates].filter(([folder, source]) => !source && built.has(packageOf(folder))).map(([folder]) => folder));
}

/** One path without its tree: an output-folder name at a package root, holding no source file. */
function outputFoldersByName(path: string): Set<string> {
  return new Set([...outputFolderCandidates([path]).candidates].filter(([, source]) => !source).map(([folder]) => folder));
}

/** Package roots, and the output-named folders at one of them, each with whether it holds source. */
function outputFolderCandidates(all: readonly string[]): { roots: Set<string>; candidates: Map<string, boolean> } {
  const roots = new Set<string>(['']);
  for (const p of all) {
    const at = p.lastIndexOf('/');
    if (PACKAGE_MANIFESTS.has(p.slice(at + 1).toLowerCase())) roots.add(at < 0 ? '' : p.slice(0, at));
  }
  const candidates = new Map<string, boolean>();
  for (const p of all) {
    const parts = p.split('/');
    for (let i = 0; i < parts.length - 1; i++) {
      if (!GENERATED_DIRS.has(parts[i]!) || !roots.has(parts.slice(0, i).join('/'))) continue;
      const folder = parts.slice(0, i + 1).join('/');
      candidates.set(folder, (candidates.get(folder) ?? false) || isSource(parts[parts.length - 1]!));
    }
  }
  return { roots, candidates };
}

/** Code an output folder is built from: hand-written source, or JavaScript (which output is too). */
function isCode(name: string): boolean {
  const lower = name.toLowerCase();
  if (DECLARATIONS.test(lower)) return false;
  return SOURCE_EXTENSIONS.has(extensionOf(lower)) || /\.[mc]?jsx?$/.test(lower);
}

/** The package roots that hold code outside every candidate output folder (in any package below them). */
function packagesWithCodeOutside(paths: readonly string[], roots: ReadonlySet<string>, outputs: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  for (const p of paths) {
    if (!isCode(p.slice(p.lastIndexOf('/') + 1)) || inOutputFolder(p, outputs)) continue;
    if (roots.has('')) found.add('');
    for (let at = p.indexOf('/'); at >= 0; at = p.indexOf('/', at + 1)) if (roots.has(p.slice(0, at))) found.add(p.slice(0, at));
  }
  return found;
}

function inOutputFolder(path: string, outputs: ReadonlySet<string>): boolean {
  for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) if (outputs.has(path.slice(0, at))) return true;
  return false;
}

/** Bytes looked at for `@generated` markers and minified text. */
const GENERATED_SNIFF = 4096;

/**
 * Evidence in the first bytes: an `@generated` / "Code generated … DO NOT EDIT" header (the
 * conventions of Facebook tools, Go and protobuf), or, in JS/CSS/HTML, minified text (a line over
 * 2,000 characters with an average line over 300 in the first 8 KB).
 */
export function looksGenerated(head: Uint8Array, name = 'x.js'): boolean {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, BINARY_SNIFF_BYTES)).toString('utf8');
  const top = text.slice(0, GENERATED_SNIFF);
  if (/@generated\b|\bCode generated\b.*\bDO NOT EDIT\b|\bAUTO-GENERATED FILE\b|\bautomatically generated by\b/i.test(top.split('\n').slice(0, 8).join('\n'))) return true;
  if (!/\.(m?js|cjs|jsx|css|html?)$/i.test(name)) return false;
  const lines = text.split('\n');
  const longest = Math.max(...lines.map((l) => l.length));
  return text.length >= 2000 && longest > 2000 && text.length / lines.length > 300;
}

const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'deno.lock',
  'cargo.lock',
  'poetry.lock',
  'pipfile.lock',
  'uv.lock',
  'pdm.lock',
  'go.sum',
  'composer.lock',
  'gemfile.lock',
  'flake.lock',
  'mix.lock',
  'pubspec.lock',
  'package.resolved',
  'packages.lock.json',
  'podfile.lock',
]);

const BINARY_EXTENSIONS = new Set(
  (
    'png jpg jpeg gif bmp ico icns webp tif tiff psd avif heic ' +
    'pdf doc docx xls xlsx ppt pptx odt ' +
    'zip gz tgz bz2 xz zst 7z rar tar lz4 br jar war ear whl egg nupkg deb rpm dmg iso apk ' +
    'exe dll so dylib a o obj lib pdb class pyc pyo node wasm bin dat ' +
    'woff woff2 ttf otf eot ' +
    'mp3 mp4 m4a wav ogg oga flac aac avi mov mkv webm wmv ' +
    'sqlite sqlite3 db mdb parquet npy npz pkl pickle h5 onnx pt pth safetensors tflite ckpt'
  ).split(' '),
);

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** True when the bytes hold a NUL within the first BINARY_SNIFF_BYTES bytes. */
export function looksBinary(head: Uint8Array): boolean {
  const n = Math.min(head.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (head[i] === 0) return true;
  return false;
}

/**
 * Why a file should not be kept, or null to keep it. `bytes` may be negative or NaN when the size
 * is unknown (a probe without blobs); the size rule is then not applied. Without `head`, binary
 * detection goes by extension only.
 */
export function skipReason(
  path: string,
  bytes: number,
  head?: Uint8Array,
  opts: SkipOptions = {},
): SkipReason | null {
  if (opts.isSymlink) return 'symlink';
  const parts = path.split('/');
  const name = parts[parts.length - 1]!;
  const dirs = parts.slice(0, -1);
  const lowerName = name.toLowerCase();
  // Lower-cased: case-insensitive file systems (and git's own path checks) treat .GIT as .git.
  if (dirs.some((d) => VCS_DIRS.has(d.toLowerCase())) || GIT_CONTROL_FILES.has(lowerName)) return 'vcs';
  if (!opts.requested) {
    const reason = evidenceByName(path, opts.outputDirs ?? outputFoldersByName(path), opts.marks);
    if (reason) return reason;
  }
  if (BINARY_EXTENSIONS.has(extensionOf(name))) return 'binary';
  const max = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (Number.isFinite(bytes) && bytes >= 0 && bytes > max) return 'too_large';
  if (head && looksBinary(head)) return 'binary';
  if (!opts.requested && opts.marks?.generated !== false && head && looksGenerated(head, lowerName)) return 'generated';
  return null;
}

/**
 * What the path alone says about a file: in node_modules, vendored, build output, a lock file, a
 * generated name; the repository's own marks come first and can overrule the vendored and
 * generated guesses.
 */
function evidenceByName(path: string, outputDirs: ReadonlySet<string>, marks: LinguistMarks = {}): SkipReason | null {
  if (marks.vendored) return 'vendored';
  if (marks.generated) return 'generated';
  const parts = path.split('/');
  const lowerName = parts[parts.length - 1]!.toLowerCase();
  const dirs = parts.slice(0, -1);
  if (marks.vendored !== false) {
    if (dirs.includes('node_modules')) return 'node_modules';
    if (dirs.some((d) => VENDOR_DIRS.has(d))) return 'vendored';
  }
  if (marks.generated !== false && inOutputFolder(path, outputDirs)) return 'generated';
  if (LOCKFILES.has(lowerName) || lowerName.endsWith('.lock')) return 'lockfile';
  if (
    marks.generated !== false &&
    (/\.min\.(js|mjs|cjs|css)$/.test(lowerName) ||
      lowerName.endsWith('.map') ||
      lowerName.endsWith('.pb.go') ||
      /_pb2(_grpc)?\.pyi?$/.test(lowerName) ||
      /_generated\.[^./]+$/.test(lowerName))
  ) {
    return 'generated';
  }
  return null;
}

/**
 * True when the user asked for this file despite the evidence rules: `paths` names the file
 * itself, or a folder that lies inside a skipped area (`dist/`, `node_modules/left-pad/`, a folder
 * the repository marks `gen/** linguist-generated`), so asking for `src/` never brings in
 * `src/vendor/`.
 */
export function requestedExplicitly(
  path: string,
  paths: readonly string[] | undefined,
  outputDirs: ReadonlySet<string>,
  marksOf: (path: string) => LinguistMarks = () => ({}),
): boolean {
  if (!paths) return false;
  return paths.some((p) => p === path || (p.endsWith('/') && path.startsWith(p) && evidenceByName(`${p}x`, outputDirs, marksOf(`${p}x`)) !== null));
}

const LANGUAGES: Record<string, string> = {
  rs: 'Rust',
  ts: 'TypeScript',
  tsx: 'TypeScript',
  mts: 'TypeScript',
  cts: 'TypeScript',
  js: 'JavaScript',
  jsx: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  py: 'Python',
  pyi: 'Python',
  go: 'Go',
  java: 'Java',
  kt: 'Kotlin',
  kts: 'Kotlin',
  scala: 'Scala',
  swift: 'Swift',
  c: 'C',
  h: 'C',
  cc: 'C++',
  cpp: 'C++',
  cxx: 'C++',
  hpp: 'C++',
  hh: 'C++',
  hxx: 'C++',
  cs: 'C#',
  fs: 'F#',
  rb: 'Ruby',
  php: 'PHP',
  lua: 'Lua',
  dart: 'Dart',
  ex: 'Elixir',
  exs: 'Elixir',
  erl: 'Erlang',
  hs: 'Haskell',
  ml: 'OCaml',
  mli: 'OCaml',
  clj: 'Clojure',
  zig: 'Zig',
  nim: 'Nim',
  jl: 'Julia',
  r: 'R',
  sh: 'Shell',
  bash: 'Shell',
  zsh: 'Shell',
  fish: 'Shell',
  ps1: 'PowerShell',
  sql: 'SQL',
  vue: 'Vue',
  svelte: 'Svelte',
  html: 'HTML',
  htm: 'HTML',
  css: 'CSS',
  scss: 'SCSS',
  sass: 'Sass',
  less: 'Less',
  md: 'Markdown',
  mdx: 'MDX',
  markdown: 'Markdown',
  rst: 'reStructuredText',
  adoc: 'AsciiDoc',
  txt: 'Text',
  json: 'JSON',
  jsonc: 'JSON',
  json5: 'JSON',
  yaml: 'YAML',
  yml: 'YAML',
  toml: 'TOML',
  xml: 'XML',
  svg: 'SVG',
  proto: 'Protocol Buffers',
  graphql: 'GraphQL',
  gql: 'GraphQL',
  tf: 'HCL',
  hcl: 'HCL',
  nix: 'Nix',
  sol: 'Solidity',
  elm: 'Elm',
  gleam: 'Gleam',
};

const LANGUAGE_FILENAMES: Record<string, string> = {
  dockerfile: 'Dockerfile',
  makefile: 'Makefile',
  gnumakefile: 'Makefile',
  'cmakelists.txt': 'CMake',
  justfile: 'Just',
};

/** Display name of a file's language for summaries ("Rust", "Markdown"), or undefined. */
export function languageOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const byName = LANGUAGE_FILENAMES[name];
  if (byName) return byName;
  if (name.startsWith('dockerfile.')) return 'Dockerfile';
  return LANGUAGES[extensionOf(name)];
}
