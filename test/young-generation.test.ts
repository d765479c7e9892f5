import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

const WORKER = join(import.meta.dirname, 'young-generation-worker.ts');

describe('withYoungGenerationHeld', () => {
  it("keeps V8's young generation from growing while the work runs (also when holds overlap), and lets it grow again after", () => {
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', WORKER], { encoding: 'utf8' })) as Record<string, number>;
    expect(out.kept).toBe(900);
    // At most its size at the start: --optimize-for-size, set by the same hold, may shrink it.
    expect(out.held).toBeLessThanOrEqual(out.start);
    expect(out.nested).toBeLessThanOrEqual(out.start);
    expect(out.after).toBeGreaterThan(out.nested);
  });
});
