import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { describe, expect, it } from 'vitest';

/** Every module under a folder of src/lib, and the rooms of src/lib it imports (static or `import()`). */
function importsOf(room: string): { file: string; target: string }[] {
  const base = join(__dirname, '..', 'src', 'lib');
  const out: { file: string; target: string }[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/(?:from |import\()\s*'(\.[^']+)'/g)) {
          const resolved = relative(base, join(dir, m[1]!));
          out.push({ file: relative(base, p), target: resolved.split('/')[0]! });
        }
      }
    }
  };
  walk(join(base, room));
  return out;
}

describe('import arrows run one way (docs/ARCHITECTURE.md)', () => {
  it('the index imports nothing from vectors, topics or search', () => {
    const bad = importsOf('index').filter((i) => ['vectors', 'topics', 'search'].includes(i.target));
    expect(bad).toEqual([]);
  });

  it('vectors import nothing from topics or search', () => {
    const bad = importsOf('vectors').filter((i) => ['topics', 'search'].includes(i.target));
    expect(bad).toEqual([]);
  });

  it('the scan sees the imports it judges (vectors do use the index)', () => {
    expect(importsOf('vectors').some((i) => i.target === 'index')).toBe(true);
  });
});
