/**
 * Translated copies of documents, recognised by path alone so ranking can put them below their
 * original.
 */

/** Language folder names: `docs/fr/…`, `i18n/de/…`, `README.zh-CN.md`. */
const LANG = '(?:[a-z]{2}(?:[-_][A-Za-z]{2,4})?)';
const TRANSLATION_DIR = /(^|\/)(translations?|i18n|l10n|locales?)\//i;
const LANG_DIR = new RegExp(`(^|/)(docs?|documentation|content|site|guides?)/(${LANG})/(.+)$`);
const LANG_SUFFIX = new RegExp(`^(.*?)[._-](${LANG})(\\.(?:md|mdx|markdown|rst|txt|adoc))$`);
const ENGLISH = /^en([-_]|$)/i;

/**
 * Docs that are translated copies: under translations/ / i18n/ (prose only), or docs/<lang>/x
 * and README.<lang>.md when the English copy (docs/x, docs/en/x, README.md) is in the topic.
 * Memoised per index object, and per path.
 */
const translatedMemo = new WeakMap<object, (path: string) => boolean>();
export function translatedPaths(index: { chunks: ReadonlyMap<string, { path: string }> }): (path: string) => boolean {
  const known = translatedMemo.get(index);
  if (known) return known;
  let paths: Set<string> | undefined;
  const has = (p: string): boolean => {
    paths ??= new Set([...index.chunks.values()].map((c) => c.path));
    return paths.has(p);
  };
  // A warm process asks about the same candidates' paths answer after answer: three regular
  // expressions each time were a few percent of a 100-hit answer. The index's files bound it.
  const answers = new Map<string, boolean>();
  const fn = (path: string): boolean => {
    let yes = answers.get(path);
    if (yes === undefined) answers.set(path, (yes = isTranslatedCopy(path, has)));
    return yes;
  };
  translatedMemo.set(index, fn);
  return fn;
}

export function isTranslatedCopy(path: string, has: (p: string) => boolean): boolean {
  if (!/\.(md|mdx|markdown|rst|txt|adoc|html?)$/i.test(path)) return false;
  if (TRANSLATION_DIR.test(path)) return true;
  const d = LANG_DIR.exec(path);
  if (d && !ENGLISH.test(d[3]!)) {
    const base = path.slice(0, d.index + d[1]!.length) + d[2];
    return has(`${base}/${d[4]}`) || has(`${base}/en/${d[4]}`);
  }
  const slash = path.lastIndexOf('/');
  const m = LANG_SUFFIX.exec(path.slice(slash + 1));
  if (m && !ENGLISH.test(m[2]!) && /^(readme|changelog|contributing|index|guide|getting[-_]started)$/i.test(m[1]!)) {
    return has(`${path.slice(0, slash + 1)}${m[1]}${m[3]}`);
  }
  return false;
}
