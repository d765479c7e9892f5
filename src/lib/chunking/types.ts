/**
 * A file's (or chunk's) role decides ranking (docs and examples over code, tests below) and which
 * chunker applies: docs = prose; example = files under examples/ or named *_example*; test = test
 * files and test blocks (a Rust `mod tests` inside a source file included); code = the rest.
 */
export type Role = 'docs' | 'example' | 'code' | 'test';

/** One searchable piece of a reference file. Lines are 1-based and inclusive. */
export interface Chunk {
  /** Path relative to the topic folder, POSIX separators. */
  path: string;
  startLine: number;
  endLine: number;
  role: Role;
  /** Heading path for docs ("Guide > Install > Linux"), or a display name for code ("class Foo"). */
  title: string;
  /** Symbol name for code chunks cut by syntax tree (e.g. "parseConfig", "Foo.bar"). */
  symbol?: string;
  /** function | class | method | interface | impl | struct | enum | type | module | test | section | window */
  kind: string;
  /** Language id for code (typescript, python, …); "markdown" / "text" for docs. */
  language: string;
  text: string;
  /** sha256 hex of `text`: the embedding cache key together with the model. */
  hash: string;
}
