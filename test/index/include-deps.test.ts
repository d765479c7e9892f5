import { describe, expect, it } from 'vitest';

import { pagesIncluding, SuffixLookup } from '../../src/lib/index/include-deps.js';

describe('include dependencies', () => {
  it('finds a target written from another folder by its unique path suffix, never a guess between two', () => {
    const look = new SuffixLookup(['packages/docs-router/src/ex/spawn.rs', 'packages/a/x.rs', 'packages/b/x.rs']);
    expect(look.find('../docs-router/src/ex/spawn.rs')).toBe('packages/docs-router/src/ex/spawn.rs');
    expect(look.find('./x.rs')).toBeNull(); // two files end so
    expect(look.find('../../a/x.rs')).toBe('packages/a/x.rs');
    expect(look.find('../other/spawn.rs')).toBeNull();
  });

  it('re-chunks the pages that include a touched file, once, and only pages still there', () => {
    const includes = { 'book/a.md': ['ex/a.rs'], 'book/b.md': ['ex/b.rs', 'ex/a.rs'], 'book/gone.md': ['ex/a.rs'] };
    const onDisk = new Map([['book/a.md', 1], ['book/b.md', 1], ['ex/a.rs', 1]]);
    expect(pagesIncluding(includes, new Set(['ex/a.rs']), onDisk).sort()).toEqual(['book/a.md', 'book/b.md']);
    expect(pagesIncluding(includes, new Set(['ex/a.rs', 'book/a.md']), onDisk)).toEqual(['book/b.md']);
    expect(pagesIncluding(includes, new Set(['ex/c.rs']), onDisk)).toEqual([]);
    expect(pagesIncluding(undefined, new Set(['ex/a.rs']), onDisk)).toEqual([]);
  });
});
