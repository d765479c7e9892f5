import { describe, expect, it } from 'vitest';

import { closest, editDistance, suggestCommands } from '../src/lib/suggest.js';

const IDS = ['init', 'search', 'get', 'delete', 'refresh', 'topic create', 'topic list', 'topic search', 'topic show', 'index rebuild', 'index status', 'file status', 'doctor'];

describe('did you mean', () => {
  it('edit distance counts a swapped pair once', () => {
    expect(editDistance('serach', 'search')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests the command a typo meant, comparing as many words as the command has', () => {
    expect(suggestCommands(['serach', 'foo'], IDS)).toEqual(['search']);
    expect(suggestCommands(['topic', 'lsit'], IDS)).toEqual(['topic list']);
    expect(suggestCommands(['tpoic', 'show', 'x'], IDS)).toEqual(['topic show']);
    expect(suggestCommands(['indx', 'status'], IDS)).toEqual(['index status']);
    expect(suggestCommands(['docter'], IDS)).toEqual(['doctor']);
    expect(suggestCommands(['completely-different'], IDS)).toEqual([]);
  });

  it('closest finds near ids and abbreviations, best first', () => {
    expect(closest('topic-widgetorn', ['topic-widgetron', 'topic-other'])).toEqual(['topic-widgetron']);
    expect(closest('dio', ['dioxus', 'react'])).toEqual(['dioxus']);
    expect(closest('zzz', ['dioxus'])).toEqual([]);
  });
});
