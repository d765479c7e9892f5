import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { KEEP_END, KEEP_START, keptSections, regenerateReport } from '../../bench/lib/store.js';

describe('BENCHMARKS.md hand-written sections', () => {
  it('survive a regeneration of the report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkoma-report-'));
    try {
      const md = join(dir, 'B.md');
      const section = `${KEEP_START}\n## Vectors: evidence\n\nkept text\n${KEEP_END}`;
      writeFileSync(md, `# old generated\n\n${section}\n`);
      expect(keptSections(md)).toContain('kept text');
      regenerateReport({ json: join(dir, 'b.json'), md, smoke: false }, []);
      const after = readFileSync(md, 'utf8');
      expect(after).not.toContain('old generated');
      expect(after).toContain(section);
      regenerateReport({ json: join(dir, 'b.json'), md, smoke: false }, []);
      expect(readFileSync(md, 'utf8').split(KEEP_START)).toHaveLength(2); // not duplicated
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
