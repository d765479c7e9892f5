import type { Role } from './types.js';

/** Extensions of prose formats: chunked by headings, ranked as docs. */
const PROSE_EXT = new Set([
  'md', 'mdx', 'markdown', 'mkd', 'mdown', 'rst', 'rest', 'txt', 'text', 'adoc', 'asciidoc', 'asc',
  'org', 'rdoc', 'textile', 'pod',
]);

/** Extensions of web pages: prose even when not converted to markdown. */
const PAGE_EXT = new Set(['html', 'htm', 'xhtml']);

/** Extensionless prose files a repository keeps at any level (README, CHANGELOG, ...). */
const PROSE_NAME = /^(readme|changelog|changes|history|news|contributing|authors|notice|upgrading|migrating|migration|faq|security|code_of_conduct|releases?)(\.|$)/i;

/** Folders whose non-code files are documentation. */
const DOC_DIR = /(^|\/)(docs?|documentation|guides?|manual|wiki|site\/content|content\/docs)\//i;

/** Data / configuration extensions: never prose, even inside docs/. */
const DATA_EXT = new Set([
  'json', 'jsonc', 'json5', 'yaml', 'yml', 'toml', 'ini', 'cfg', 'conf', 'xml', 'csv', 'tsv', 'lock',
  'svg', 'css', 'scss', 'sass', 'less', 'map', 'env', 'properties', 'gradle', 'cmake', 'mk', 'nix',
  'proto', 'graphql', 'gql', 'sql', 'tf', 'hcl', 'bzl', 'dockerfile', 'vue', 'svelte', 'astro',
  'ipynb',
]);

/** Extension (lower case) -> tree-sitter-wasms grammar id. Only grammars that load and parse here. */
const GRAMMAR_BY_EXT: Record<string, string> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  py: 'python', pyi: 'python', pyw: 'python',
  rs: 'rust',
  go: 'go',
  java: 'java',
  c: 'c',
  // Headers: the C++ grammar also reads C, and many .h files are C++.
  h: 'cpp', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', 'c++': 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp',
  ipp: 'cpp', inl: 'cpp', tpp: 'cpp',
  cs: 'c_sharp', csx: 'c_sharp',
  rb: 'ruby', rake: 'ruby', gemspec: 'ruby', ru: 'ruby',
  php: 'php', phtml: 'php',
  sh: 'bash', bash: 'bash', zsh: 'bash', ksh: 'bash',
  kt: 'kotlin', kts: 'kotlin',
  scala: 'scala', sc: 'scala',
  swift: 'swift',
  // lua is left out: tree-sitter-wasms 0.1.13's lua grammar misparses `local x = 1` under this runtime.
};

const GRAMMAR_BY_NAME: Record<string, string> = {
  rakefile: 'ruby', gemfile: 'ruby', guardfile: 'ruby', podfile: 'ruby', vagrantfile: 'ruby',
  '.bashrc': 'bash', '.bash_profile': 'bash', '.zshrc': 'bash', '.profile': 'bash', pkgbuild: 'bash',
};

function splitName(path: string): { dir: string; name: string; ext: string } {
  const p = path.replace(/\\/g, '/');
  const slash = p.lastIndexOf('/');
  const name = p.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return { dir: slash === -1 ? '' : p.slice(0, slash + 1), name, ext };
}

/** Grammar id for a code file, or undefined when no syntax-aware chunker applies. */
export function languageForPath(path: string): string | undefined {
  const { name, ext } = splitName(path);
  return GRAMMAR_BY_EXT[ext] ?? GRAMMAR_BY_NAME[name.toLowerCase()];
}

/** True for files the markdown/prose chunker should cut by headings. */
export function isProsePath(path: string): boolean {
  const { dir, name, ext } = splitName(path);
  if (PROSE_EXT.has(ext)) return true;
  if (languageForPath(path) || DATA_EXT.has(ext) || PAGE_EXT.has(ext)) return false;
  if (PROSE_NAME.test(name) || /^licen[cs]e/i.test(name)) return true;
  return ext === '' && DOC_DIR.test(`/${dir}`);
}

/** Folders of tests, and test file names (JS/TS, Python, Go, Ruby, Rust integration tests). */
const TEST_DIR = /(^|\/)(tests?|__tests__|__mocks__|specs?|testdata|test-?fixtures|fixtures|e2e|[\w.-]+[_-]tests?|tests?[_-][\w.-]+)\//i;
const TEST_NAME = /(\.(test|spec|e2e-spec)\.[^.]+$)|(^test_[^/]*\.py$)|(_test\.(py|go|rb|exs?|dart)$)|(_spec\.rb$)|(^tests?\.(py|rs|js|ts)$)|(Tests?\.(java|kt|cs|swift)$)/i;
/** Folders and names of runnable examples. */
const EXAMPLE_DIR = /(^|\/)(examples?|demos?|samples?|cookbook|recipes|playground)\//i;
const EXAMPLE_NAME = /(^|[_.-])(example|examples|demo)([_.-]|$)/i;

export function isTestPath(path: string): boolean {
  const { dir, name } = splitName(path);
  return TEST_NAME.test(name) || TEST_DIR.test(`/${dir}`);
}

export function isExamplePath(path: string): boolean {
  const { dir, name } = splitName(path);
  const stem = name.replace(/\.[^.]*$/, '');
  return EXAMPLE_DIR.test(`/${dir}`) || EXAMPLE_NAME.test(stem);
}

/**
 * docs for prose (markdown, rst, text, asciidoc, web pages, README/CHANGELOG and friends,
 * extensionless files under docs/), wherever it is; example for code under examples/ (or named
 * *_example*); test for test files (by name, or under a tests/, fixtures/, e2e/ or *_tests/
 * folder), before the example rule; code for everything else, data and config included.
 */
export function roleForPath(path: string): Role {
  const { ext } = splitName(path);
  const prose = isProsePath(path) || PAGE_EXT.has(ext);
  // A test file is a test even when its name says example (`codec-examples.test.ts`).
  if (!prose && isTestPath(path)) return 'test';
  // Prose is documentation wherever it sits (a cookbook's or an example's page explains it), so
  // only code under an examples folder is an example (issue 26: cookbook/ pages missed the docs prior).
  if (isExamplePath(path) && !prose) return 'example';
  if (prose) return 'docs';
  return 'code';
}

/** Language label for docs chunks: "markdown" for markdown dialects, "text" for other prose. */
export function docLanguageForPath(path: string): string {
  const { ext } = splitName(path);
  return ext === 'md' || ext === 'mdx' || ext === 'markdown' || ext === 'mkd' || ext === 'mdown'
    ? 'markdown'
    : 'text';
}

/** Prose dialect deciding which heading syntaxes apply. */
export function proseDialect(path: string): 'markdown' | 'rst' | 'asciidoc' {
  const { ext } = splitName(path);
  if (ext === 'rst' || ext === 'rest') return 'rst';
  if (ext === 'adoc' || ext === 'asciidoc' || ext === 'asc') return 'asciidoc';
  return 'markdown';
}
