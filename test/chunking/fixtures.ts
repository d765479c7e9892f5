import { CLASSIC } from './fixtures-classic.js';
import { WEB_AND_SYSTEMS } from './fixtures-web.js';

/** Realistic snippets per language; each names the symbols a chunker must find in it. */
export interface CodeFixture {
  path: string;
  language: string;
  code: string;
  /** symbol -> kind that must appear among the chunks (with minChars 0). */
  symbols: Record<string, string>;
  /** A doc comment / decorator line that must sit in the same chunk as the symbol. */
  docOf: [symbol: string, line: string];
  /** A class whose methods must become separate chunks when the class exceeds maxChars. */
  bigClass?: { name: string; kind: string; methods: string[] };
}

export const FIXTURES: CodeFixture[] = [...WEB_AND_SYSTEMS, ...CLASSIC];
