/** Request validation for topic create/update: the field names in errors, the defaults filled in. */
import { describe, expect, it } from 'vitest';

import { TkomaError } from '../../src/lib/errors.js';
import { validateCreateRequest, validateSource, validateTopicIdField } from '../../src/lib/topics/request.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return err instanceof TkomaError ? err.code : `untyped: ${String(err)}`;
  }
  return 'ok';
};

describe('validateCreateRequest', () => {
  it('fills the defaults and derives the id from the title', () => {
    const r = validateCreateRequest({ title: 'Gears', sources: [{ type: 'git', url: 'https://example.com/gears.git' }] });
    expect(r).toMatchObject({ title: 'Gears', body: '# Gears\n', tags: [], max_age_days: 30, trust_score: 5 });
    expect(r.topic_id).toMatch(/gears/);
    expect(r.sources).toEqual([{ type: 'git', url: 'https://example.com/gears.git' }]);
  });

  it('refuses a missing title, no sources, a source listed twice, a trust score out of range', () => {
    const git = { type: 'git', url: 'https://example.com/g.git' };
    expect(codeOf(() => validateCreateRequest({ sources: [git] }))).toBe('INVALID_INPUT');
    expect(codeOf(() => validateCreateRequest({ title: 'G', sources: [] }))).toBe('INVALID_INPUT');
    expect(codeOf(() => validateCreateRequest({ title: 'G', sources: [git, git] }))).toBe('INVALID_INPUT');
    expect(codeOf(() => validateCreateRequest({ title: 'G', sources: [git], trust_score: 11 }))).toBe('INVALID_INPUT');
    expect(codeOf(() => validateCreateRequest('not an object'))).toBe('INVALID_INPUT');
  });
});

describe('validateSource', () => {
  it('keeps a git ref and paths, lower-cases a full sha', () => {
    const sha = 'ABCDEF0123456789ABCDEF0123456789ABCDEF01';
    expect(validateSource({ type: 'git', url: ' https://example.com/g.git ', ref: sha, paths: ['docs'] }, 0)).toMatchObject({
      url: 'https://example.com/g.git',
      ref: sha.toLowerCase(),
      paths: ['docs'],
    });
  });

  it('refuses a web source with a ref, an unknown type, an option-looking ref', () => {
    expect(codeOf(() => validateSource({ type: 'web', url: 'https://example.com/', ref: 'main' }, 0))).toBe('INVALID_INPUT');
    expect(codeOf(() => validateSource({ type: 'svn', url: 'https://example.com/' }, 0))).toBe('INVALID_ENUM');
    expect(codeOf(() => validateSource({ type: 'git', url: 'https://example.com/g.git', ref: '--upload-pack=x' }, 0))).not.toBe('ok');
  });
});

describe('validateTopicIdField', () => {
  it('accepts ids and names the field when it refuses', () => {
    expect(validateTopicIdField('topic-gears')).toBe('topic-gears');
    expect(() => validateTopicIdField('Not An Id', 'id')).toThrow(/`id` must be a topic id/);
  });
});
