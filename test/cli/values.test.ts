import { describe, expect, it } from 'vitest';

import { closest } from '../../src/lib/suggest.js';
import { explainParseError, parseWholeNumber, plural } from '../../src/cli/values.js';
import { formatDuration, rateAndEta, stepFailed, usableColumns } from '../../src/cli/progress.js';
import { renderEvent, renderSyncReport } from '../../src/cli/events.js';

describe('flag values keep their reason', () => {
  it('whole numbers', () => {
    expect(parseWholeNumber('limit', '7', 1, 200)).toBe(7);
    expect(() => parseWholeNumber('limit', 'abc', 1, 200)).toThrow("--limit must be a whole number from 1 to 200 (got 'abc')");
    expect(() => parseWholeNumber('limit', '0', 1, 200)).toThrow("--limit must be a whole number from 1 to 200 (got '0')");
    expect(() => parseWholeNumber('start-line', '1.5', 1)).toThrow("--start-line must be a whole number ≥ 1 (got '1.5')");
  });

  it("oclif's parse errors in words", () => {
    expect(explainParseError("Parsing --limit \n\t--limit must be a whole number from 1 to 200 (got 'abc')\nSee more help with --help")).toBe(
      "--limit must be a whole number from 1 to 200 (got 'abc')",
    );
    expect(explainParseError('Parsing --trust-score \n\tExpected an integer but received: x\nSee more help with --help')).toBe("--trust-score must be a whole number (got 'x')");
    expect(explainParseError('Expected --mode=fuzzy to be one of: hybrid, lexical, vector\nSee more help with --help')).toBe(
      "--mode must be one of hybrid, lexical, vector (got 'fuzzy')",
    );
    expect(explainParseError('Nonexistent flag: --limt\nSee more help with --help', ['limit', 'json'], closest)).toBe('unknown flag --limt: did you mean --limit? (see --help)');
    expect(explainParseError('Missing 1 required arg:\nid  Topic id\nSee more help with --help')).toBe('missing ID: see --help');
  });

  it('plurals', () => {
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(1413, 'chunk')).toBe('1,413 chunks');
  });
});

describe('progress words', () => {
  it('rate and ETA only once a phase has run a while', () => {
    expect(rateAndEta(10, 100, 500)).toBe('');
    expect(rateAndEta(100, 1000, 4000)).toBe('25/s, ETA 36s');
    expect(formatDuration(400)).toBe('0.4s');
    expect(formatDuration(185_000)).toBe('3m05s');
  });
  it('a step that returns a failure is a failure', () => {
    expect(stepFailed({ ok: false })).toBe(true);
    expect(stepFailed({ kind: 'failed' })).toBe(true);
    expect(stepFailed({ ok: true })).toBe(false);
    expect(stepFailed(undefined)).toBe(false);
  });
  it('a terminal with 0 columns is treated as 80 wide', () => {
    expect(usableColumns(0)).toBe(80);
    expect(usableColumns(undefined)).toBe(80);
    expect(usableColumns(120)).toBe(120);
  });
});

describe('events and reports for people', () => {
  const report = {
    topics: { 'topic-a': { files: 1, chunks: 3, added: 1, changed: 0, removed: 0, embedded: 0, vectors: 0, repaired: [] } },
    removed_topics: [],
    embedder: null,
    embedded: 0,
  };
  it('one line per event', () => {
    expect(renderEvent({ type: 'sync', topics: ['topic-a'], report })).toBe('synced topic-a 1 added (1 file, 3 chunks)');
    expect(renderEvent({ type: 'reconcile', report: { ...report, topics: { 'topic-a': { ...report.topics['topic-a'], added: 0 } } } })).toBe('reconciled 1 topic: up to date');
    expect(renderEvent({ type: 'error', message: 'boom', code: 'LOCKED' })).toBe('✖ boom [LOCKED]');
    expect(renderEvent({ type: 'file', event: 'change', path: '/kb/references/topic-a/README.md', topic: 'topic-a' })).toBe('change topic-a/README.md');
  });
  it('a rebuild report', () => {
    expect(renderSyncReport({ ...report, vector_search: { available: false, reason: 'embedder "none" selected' } }, 'Rebuilt the index of')).toBe(
      ['Rebuilt the index of 1 topic: 1 file, 3 chunks, 0 vectors', '  topic-a: 1 file, 3 chunks, 0 vectors', 'Vectors: off (embedder "none" selected); search is lexical'].join('\n'),
    );
  });
});
