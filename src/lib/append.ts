/**
 * Appends `items` to `into` one by one. `into.push(...items)` passes every item as an argument,
 * and past ~120k of them (a create or refresh of a 200k-file tree) it throws "Maximum call stack
 * size exceeded".
 */
export function appendAll<T>(into: T[], items: Iterable<T>): void {
  for (const item of items) into.push(item);
}
