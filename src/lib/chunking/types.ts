/** A file's role decides ranking (docs are boosted over code) and which chunker applies. */
export type Role = 'docs' | 'code';

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
  /** function | class | method | interface | impl | struct | enum | type | module | section | window */
  kind: string;
  /** Language id for code (typescript, python, …); "markdown" / "text" for docs. */
  language: string;
  text: string;
  /** sha256 hex of `text`: the embedding cache key together with the model. */
  hash: string;
}
