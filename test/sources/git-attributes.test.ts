/** Issue 12 item 4: a repository's own linguist-generated / linguist-vendored marks (pure). */
import { describe, expect, it } from 'vitest';

import { linguistMarks, parseAttributes } from '../../src/lib/sources/git-attributes.js';
import { requestedExplicitly, skipReason } from '../../src/lib/sources/git-filter.js';

describe('linguistMarks: git attribute rules', () => {
  it('a pattern without a slash matches a file name at any depth; one with a slash is anchored', () => {
    const marks = linguistMarks([{ dir: '', text: '*.pb.ts linguist-generated\napi/schema.ts linguist-generated=true\n' }]);
    expect(marks('gen.pb.ts')).toEqual({ generated: true });
    expect(marks('deep/down/gen.pb.ts')).toEqual({ generated: true });
    expect(marks('api/schema.ts')).toEqual({ generated: true });
    expect(marks('src/api/schema.ts')).toEqual({});
    expect(marks('src/app.ts')).toEqual({});
  });

  it('folder/** reaches the files inside; a folder pattern (`folder/` or `folder`) does not', () => {
    const marks = linguistMarks([{ dir: '', text: 'third/** linguist-vendored\nlib/ linguist-vendored\nother linguist-vendored\n' }]);
    expect(marks('third/a.js')).toEqual({ vendored: true });
    expect(marks('third/x/y/.hidden.js')).toEqual({ vendored: true });
    expect(marks('lib/a.js')).toEqual({});
    expect(marks('other/a.js')).toEqual({});
    // `other` still names a file called other
    expect(marks('src/other')).toEqual({ vendored: true });
  });

  it('the last matching line decides; -attr and attr=false un-mark, !attr makes it unspecified', () => {
    const text = [
      'gen/** linguist-generated',
      'gen/keep.ts -linguist-generated',
      'gen/also.ts linguist-generated=false',
      'gen/reset.ts !linguist-generated',
      'gen/odd.ts linguist-generated=yes',
    ].join('\n');
    const marks = linguistMarks([{ dir: '', text }]);
    expect(marks('gen/a.ts')).toEqual({ generated: true });
    expect(marks('gen/keep.ts')).toEqual({ generated: false });
    expect(marks('gen/also.ts')).toEqual({ generated: false });
    expect(marks('gen/reset.ts')).toEqual({});
    expect(marks('gen/odd.ts')).toEqual({ generated: true });
  });

  it('a nested .gitattributes applies below its folder and overrides its parents', () => {
    const marks = linguistMarks([
      { dir: 'pkg/web', text: '*.js -linguist-vendored\nbundle.js linguist-generated\n' },
      { dir: '', text: '*.js linguist-vendored\n' },
    ]);
    expect(marks('a.js')).toEqual({ vendored: true });
    expect(marks('pkg/a.js')).toEqual({ vendored: true });
    expect(marks('pkg/web/a.js')).toEqual({ vendored: false });
    expect(marks('pkg/web/deep/bundle.js')).toEqual({ vendored: false, generated: true });
    expect(marks('pkg/webby/bundle.js')).toEqual({ vendored: true });
  });

  it('comments, macros, negative patterns and unrelated attributes are passed over; quoted patterns work', () => {
    const text = ['# *.js linguist-generated', '[attr]gen linguist-generated', '!*.md linguist-generated', '*.txt text eol=lf', '"with space.js" linguist-vendored', '  *.snap linguist-generated'].join('\r\n');
    expect(parseAttributes({ dir: '', text })).toHaveLength(2);
    const marks = linguistMarks([{ dir: '', text }]);
    expect(marks('with space.js')).toEqual({ vendored: true });
    expect(marks('a.js')).toEqual({});
    expect(marks('a.md')).toEqual({});
    expect(marks('x/a.snap')).toEqual({ generated: true });
  });

  it('no attributes file, no marks', () => {
    expect(linguistMarks([])('a.js')).toEqual({});
    expect(linguistMarks([{ dir: '', text: '* text=auto\n' }])('a.js')).toEqual({});
  });
});

describe('skipReason with the repository marks', () => {
  it('a mark skips a file the other rules would keep', () => {
    expect(skipReason('src/schema.ts', 10, undefined, { marks: { generated: true } })).toBe('generated');
    expect(skipReason('src/lib.js', 10, undefined, { marks: { vendored: true } })).toBe('vendored');
  });

  it('an explicit un-mark keeps what the name and content rules of that kind would skip', () => {
    const minified = Buffer.from(`!function(){${'var a=1;'.repeat(600)}}();`);
    expect(skipReason('vendor/lib.js', 10, undefined, { marks: { vendored: false } })).toBeNull();
    expect(skipReason('node_modules/x/i.js', 10, undefined, { marks: { vendored: false } })).toBeNull();
    expect(skipReason('dist/index.js', 10, undefined, { marks: { generated: false } })).toBeNull();
    expect(skipReason('app.min.js', 10, undefined, { marks: { generated: false } })).toBeNull();
    expect(skipReason('app.js', minified.length, minified, { marks: { generated: false } })).toBeNull();
    expect(skipReason('app.js', minified.length, minified)).toBe('generated');
    // un-marking one kind leaves the other's rules
    expect(skipReason('vendor/lib.js', 10, undefined, { marks: { generated: false } })).toBe('vendored');
  });

  it('marks never overrule the safety rules, and the user asking for the file wins over a mark', () => {
    expect(skipReason('.gitattributes', 10, undefined, { marks: { generated: false } })).toBe('vcs');
    expect(skipReason('logo.png', 10, undefined, { marks: { vendored: false } })).toBe('binary');
    expect(skipReason('gen/a.ts', 10, undefined, { marks: { generated: true }, requested: true })).toBeNull();
  });

  it('asking for a folder the repository marks brings its files in; asking for a parent does not', () => {
    const marksOf = linguistMarks([{ dir: '', text: 'pkg/gen/** linguist-generated\n' }]);
    const none = new Set<string>();
    expect(requestedExplicitly('pkg/gen/a.ts', ['pkg/gen/'], none, marksOf)).toBe(true);
    expect(requestedExplicitly('pkg/gen/a.ts', ['pkg/'], none, marksOf)).toBe(false);
    expect(requestedExplicitly('pkg/gen/a.ts', ['pkg/gen/a.ts'], none, marksOf)).toBe(true);
  });
});
