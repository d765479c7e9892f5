import { readdirSync } from 'node:fs';

/** Names in `dir`; none when it is missing or unreadable (a folder we only look into for leftovers). */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
