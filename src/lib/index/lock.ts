/**
 * The index lock: one writer of the derived index at a time per knowledge root (the watcher, a
 * search and `topic create` may all want to sync). It is the root's one lock mechanism
 * (src/lib/lock.ts) under the name `index`; mutations of the files use the name `write`.
 */
import { DEFAULT_INDEX_TIMEOUT_MS, withLock } from '../lock.js';

/**
 * Runs `fn` holding the root's index lock. `timeoutMs` bounds the wait for another process
 * (LOCKED after it); waiting for this process's own earlier calls is not bounded.
 */
export function withIndexLock<T>(root: string, fn: () => Promise<T>, opts: { timeoutMs?: number } = {}): Promise<T> {
  return withLock(root, 'index', fn, { timeoutMs: opts.timeoutMs ?? DEFAULT_INDEX_TIMEOUT_MS });
}
