/**
 * Which commands the start-up fast path may answer (cli/fast.ts), by their words, with no imports:
 * boot.ts names a code cache after each, and sends every other command back to oclif before
 * loading the fast path at all.
 */
const FAST_COMMANDS = new Set(['search', 'mcp', 'init', 'get', 'delete', 'approve', 'deny', 'refresh', 'sync', 'topic list', 'topic create', 'topic update', 'file status', 'index status']);

/** The fast command argv starts with (`topic-update` for `topic update …`) and the argv after its words, or null. Pure. */
export function fastCommand(argv: readonly string[]): { name: string; rest: readonly string[] } | null {
  if (argv[0] !== undefined && FAST_COMMANDS.has(argv[0])) return { name: argv[0], rest: argv.slice(1) };
  if (argv[1] !== undefined && FAST_COMMANDS.has(`${argv[0]} ${argv[1]}`)) return { name: `${argv[0]}-${argv[1]}`, rest: argv.slice(2) };
  return null;
}
