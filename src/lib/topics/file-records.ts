/**
 * The manifest record of one fetched file: its size and hash, its role, and the prompt-injection
 * and hidden-text findings in its content.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { roleForPath } from '../chunking/index.js';
import { DEFAULT_MAX_FINDINGS, detectHiddenText, detectInjection } from '../safety/injection.js';
import type { FileFlag, FileRecord } from '../store/topic-files.js';

/** Injection findings for one fetched file, bounded (see src/lib/safety/injection.ts). */
export function flagsFor(data: Buffer, hiddenText?: readonly string[]): FileFlag[] {
  const findings = [...(hiddenText ? detectHiddenText(hiddenText) : []), ...detectInjection(data.toString('utf8'))];
  return findings.slice(0, DEFAULT_MAX_FINDINGS);
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** What a file's record says about its content: its size, hash and injection findings. */
export interface ContentFacts {
  bytes: number;
  sha256: string;
  flags: FileFlag[];
}

export function factsOf(data: Buffer, hiddenText?: readonly string[]): ContentFacts {
  return { bytes: data.length, sha256: sha256(data), flags: flagsFor(data, hiddenText) };
}

export async function recordFor(dir: string, rel: string, sourceUrl: string, fetchedAt: string, commit?: string, hiddenText?: readonly string[], known?: ContentFacts, version?: string): Promise<FileRecord> {
  const facts = known ?? factsOf(await readFile(join(dir, rel)), hiddenText);
  return {
    path: rel,
    source_url: sourceUrl,
    role: roleForPath(rel),
    bytes: facts.bytes,
    sha256: facts.sha256,
    fetched_at: fetchedAt,
    ...(commit ? { commit } : {}),
    ...(version ? { version } : {}),
    ...(facts.flags.length > 0 ? { flags: facts.flags } : {}),
  };
}
