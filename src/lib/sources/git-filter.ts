/**
 * Which repository files are worth keeping as reference material, and what language a file is.
 * Pure functions: the same rules serve the metadata probe (names and sizes only) and the fetch
 * (which also sees the first bytes of each file).
 */

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
  if (dirs.includes('node_modules')) return 'node_modules';
  if (dirs.some((d) => VENDOR_DIRS.has(d))) return 'vendored';
  if (dirs.some((d) => GENERATED_DIRS.has(d))) return 'generated';
  if (LOCKFILES.has(lowerName) || lowerName.endsWith('.lock')) return 'lockfile';
  if (
    /\.min\.(js|mjs|cjs|css)$/.test(lowerName) ||
    lowerName.endsWith('.map') ||
    lowerName.endsWith('.pb.go') ||
    /_pb2(_grpc)?\.pyi?$/.test(lowerName) ||
    /_generated\.[^./]+$/.test(lowerName)
  ) {
    return 'generated';
  }
  if (BINARY_EXTENSIONS.has(extensionOf(name))) return 'binary';
  const max = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (Number.isFinite(bytes) && bytes >= 0 && bytes > max) return 'too_large';
  if (head && looksBinary(head)) return 'binary';
  return null;
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
