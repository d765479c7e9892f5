/** npm package names and where a package's files sit in a topic. Pure, no imports: request validation loads it. */

/** `@scope/name` or `name`, as npm accepts them (old packages may have capitals). */
export function isValidPackageName(name: string): boolean {
  return name.length <= 214 && /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9_][a-z0-9._~-]*$/i.test(name);
}

/**
 * The folder of a package inside a topic: `npm/<package>` (a scope is a folder of its own). No
 * version in it: a refresh that moves to a new version then changes only the files that changed,
 * and note ids stay valid; every hit carries the version instead.
 */
export function npmFolder(pkg: string): string {
  return `npm/${pkg}`;
}
