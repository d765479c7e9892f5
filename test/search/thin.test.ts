/** Issue 26: chunks with nothing to read (comments, blank lines) are told from real content (pure). */
import { describe, expect, it } from 'vitest';

import { isThin } from '../../src/lib/search/thin.js';

describe('thin chunks', () => {
  it.each([
    ['style.css', '/* Styles for the headless test window */\n'],
    ['empty.rs', '// nothing here yet\n\n'],
    ['__init__.py', '# package marker\n'],
    ['config.yaml', '# defaults\n# none\n'],
    ['notes.md', '<!-- generated: do not edit -->\n\n'],
    ['blank.ts', '\n\n   \n'],
  ])('%s is thin', (path, text) => {
    expect(isThin(text, path)).toBe(true);
  });

  it.each([
    ['style.css', '/* buttons */\n.button { color: red; background: blue; border: none; }\n'],
    ['guide.md', '# Styling\n\nUse a stylesheet with the asset! macro.\n'],
    ['lib.rs', '// add two\npub fn add(a: i32, b: i32) -> i32 { a + b }\n'],
    ['url.ts', 'export const home = "https://example.com/start/here";\n'],
  ])('%s has content', (path, text) => {
    expect(isThin(text, path)).toBe(false);
  });
});
