/**
 * Issue 12: test files cut by test block (one chunk per test, its name as the symbol, role test),
 * roles by path (docs / example / code / test), and no scraps (a file's imports travel with its
 * first item).
 */
import { describe, expect, it } from 'vitest';

import { chunkFile, roleForPath } from '../../src/lib/chunking/index.js';

const symbols = async (path: string, code: string): Promise<Array<[string | undefined, string, string]>> =>
  (await chunkFile(path, code)).map((c) => [c.symbol, c.kind, c.role]);

describe('test files cut by test block', () => {
  it('JS/TS: describe/it/test, it.each and nested suites, setup with the first test', async () => {
    const code = `import { describe, it, expect } from 'vitest';
import { foo } from './foo';

describe('foo', () => {
  beforeEach(() => { reset(); });
  it('adds numbers', () => {
    expect(foo(1, 2)).toBe(3);
  });
  it.each([1, 2])('handles %s', (n) => {
    expect(foo(n, 0)).toBe(n);
  });
  describe('nested', () => {
    test('works', async () => {
      expect(await foo(0, 0)).toBe(0);
    });
  });
});
`;
    const chunks = await chunkFile('src/foo.test.ts', code);
    expect(chunks.map((c) => [c.symbol, c.kind, c.role])).toEqual([
      ['foo > adds numbers', 'test', 'test'],
      ['foo > handles %s', 'test', 'test'],
      ['foo > nested > works', 'test', 'test'],
    ]);
    // The imports and the suite's setup travel with the first test.
    expect(chunks[0]!.startLine).toBe(1);
    expect(chunks[0]!.text).toContain('beforeEach');
  });

  it("JS: tape's test / t.test", async () => {
    const code = `'use strict';

var test = require('tape');
var qs = require('../');

test('parse()', function (t) {
    t.test('parses a simple string', function (st) {
        st.deepEqual(qs.parse('0=foo'), { 0: 'foo' });
        st.end();
    });
    t.test('comma: false', function (st) {
        st.deepEqual(qs.parse('a[]=b,c'), { a: ['b,c'] });
        st.end();
    });
    t.end();
});
`;
    expect(await symbols('test/parse.js', code)).toEqual([
      ['parse() > parses a simple string', 'test', 'test'],
      ['parse() > comma: false', 'test', 'test'],
    ]);
  });

  it('Rust: #[test] fns in mod tests are tests even inside a source file', async () => {
    const code = `use std::fmt;

/// Adds.
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_two() {
        assert_eq!(add(1, 1), 2);
    }

    #[test]
    fn adds_zero() {
        assert_eq!(add(1, 0), 1);
    }
}
`;
    expect(await symbols('src/lib.rs', code)).toEqual([
      ['add', 'function', 'code'],
      ['tests.adds_two', 'test', 'test'],
      ['tests.adds_zero', 'test', 'test'],
    ]);
  });

  it('Python: def test_… and class Test…', async () => {
    const code = `import pytest
from x import add

def test_add():
    assert add(1, 2) == 3

class TestAdd:
    def test_zero(self):
        assert add(0, 0) == 0
    def test_one(self):
        assert add(1, 0) == 1
`;
    expect(await symbols('tests/test_x.py', code)).toEqual([
      ['test_add', 'test', 'test'],
      ['TestAdd.test_zero', 'test', 'test'],
      ['TestAdd.test_one', 'test', 'test'],
    ]);
  });

  it('Go: func Test… / Benchmark… in _test.go', async () => {
    const code = `package x

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 { t.Fatal("bad") }
}

func BenchmarkAdd(b *testing.B) {
	for i := 0; i < b.N; i++ { Add(1, 2) }
}
`;
    expect(await symbols('x_test.go', code)).toEqual([
      ['TestAdd', 'test', 'test'],
      ['BenchmarkAdd', 'test', 'test'],
    ]);
  });

  it('a call named test that is not a test block stays code', async () => {
    const code = `export function ok(s: string): boolean {\n  return /x/.test('abc') && s.length > 0;\n}\n`;
    expect((await chunkFile('src/ok.ts', code)).map((c) => c.role)).toEqual(['code']);
  });
});

describe('no scraps', () => {
  it("an imports-only header travels with the file's first item", async () => {
    const imports = Array.from({ length: 12 }, (_, i) => `import { thing${i} } from './module-number-${i}';`).join('\n');
    const code = `${imports}\n\n/** Main entry. */\nexport function main(): number {\n  return thing0() + thing1();\n}\n`;
    const chunks = await chunkFile('src/main.ts', code);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ startLine: 1, symbol: 'main' });
  });

  it('Rust use lines and a lone attribute do not stand alone', async () => {
    const body = Array.from({ length: 30 }, (_, i) => `    let v${i} = compute_value_number_${i}(input);`).join('\n');
    const code = `use std::collections::HashMap;\nuse crate::a::B;\n\npub fn big(input: u32) -> u32 {\n${body}\n    0\n}\n`;
    const chunks = await chunkFile('src/big.rs', code);
    for (const c of chunks) expect(c.text.split('\n').filter((l) => l.trim()).length).toBeGreaterThanOrEqual(3);
    expect(chunks[0]!.startLine).toBe(1);
  });
});

describe('roles by path', () => {
  it.each([
    ['README.md', 'docs'],
    ['docs/guide.md', 'docs'],
    ['examples/basic.rs', 'example'],
    ['examples/README.md', 'docs'],
    ['docs/cookbook/state.md', 'docs'],
    ['cookbook/recipes/forms.mdx', 'docs'],
    ['cookbook/forms.rs', 'example'],
    ['packages/desktop/headless_tests/style.css', 'test'],
    ['packages/core/fixtures/empty.rs', 'test'],
    ['e2e/app.spec-helpers.ts', 'test'],
    ['packages/testing/src/lib.rs', 'code'],
    ['src/server_example.py', 'example'],
    ['src/lib.rs', 'code'],
    ['src/foo.test.ts', 'test'],
    ['tests/integration.rs', 'test'],
    ['pkg/x_test.go', 'test'],
    ['tests/README.md', 'docs'],
    ['test_utils.py', 'test'],
    ['src/v4/classic/tests/codec-examples.test.ts', 'test'],
    ['examples/basic.test.js', 'test'],
    ['pkg/example_test.go', 'test'],
  ])('%s is %s', (path, role) => {
    expect(roleForPath(path)).toBe(role);
  });
});
