/**
 * Runs once per `vitest run`, in the main process: a folder for knowledge-root templates shared by
 * every test file of the run (test/helpers/roots.ts builds them on first use), removed at the end.
 * Fresh per run, so a template always comes from the binary under test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    rootTemplates: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'tkoma-root-templates-'));
  project.provide('rootTemplates', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
