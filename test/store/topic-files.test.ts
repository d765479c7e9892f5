/**
 * readTopic reuses its last parse of an unchanged topic.md: each caller still gets its own copy,
 * and an edit on disk is seen at once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { readTopic } from '../../src/lib/store/topic-files.js';
import { makeTmpRoot, WIDGETRY, writeTopic } from '../helpers/index-topics.js';

const { root, cleanup } = makeTmpRoot();
afterAll(() => cleanup());

describe('readTopic', () => {
  it('hands every caller its own copy of a cached parse', async () => {
    await writeTopic(root, WIDGETRY);
    const first = await readTopic(root, WIDGETRY.id);
    first.front.title = 'changed in memory';
    first.front.tags.push('mutated');
    first.front.files.length = 0;
    first.front.sources[0]!.url = 'https://example.invalid/';
    const second = await readTopic(root, WIDGETRY.id);
    expect(second.front.title).not.toBe('changed in memory');
    expect(second.front.tags).not.toContain('mutated');
    expect(second.front.files.length).toBeGreaterThan(0);
    expect(second.front.sources[0]!.url).not.toBe('https://example.invalid/');
  });

  it('sees an edit to topic.md on the next read', async () => {
    const file = join(root, 'references', WIDGETRY.id, 'topic.md');
    await readTopic(root, WIDGETRY.id);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title = .*$/m, 'title = "Edited by hand"'));
    expect((await readTopic(root, WIDGETRY.id)).front.title).toBe('Edited by hand');
  });
});
