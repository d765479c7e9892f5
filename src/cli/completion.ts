/**
 * Shell completion scripts for bash, zsh and fish, generated from the command manifest (what
 * `this.config.commands` holds), so a new command such as `mcp` completes without a change here.
 * Pure: a description of the commands in, a script out. (@oclif/plugin-autocomplete 4.x needs
 * Node ≥ 22; these scripts need nothing but the shell.)
 */

export interface CompletionFlag {
  name: string;
  description: string;
  takesValue: boolean;
  options?: readonly string[];
  allowNo?: boolean;
  /** The value is a topic id of the root, listed when completing (`<bin> completion topics`). */
  topicIds?: boolean;
}

export interface CompletionCommand {
  id: string; // with spaces: "topic create"
  summary: string;
  hasArgs: boolean;
  /** The first argument is a topic id (show, update, delete, refresh). */
  topicArg?: boolean;
  flags: CompletionFlag[];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Every word that can follow `prefix` ("" for the top level): command names and topic names, with a summary. */
export function nextWords(commands: readonly CompletionCommand[], prefix: string, topics: Record<string, string> = {}): { word: string; summary: string }[] {
  const depth = prefix ? prefix.split(' ').length : 0;
  const out = new Map<string, string>();
  for (const c of commands) {
    const parts = c.id.split(' ');
    if (parts.length <= depth || (prefix && parts.slice(0, depth).join(' ') !== prefix)) continue;
    const word = parts[depth]!;
    const isLeaf = parts.length === depth + 1;
    const topicId = parts.slice(0, depth + 1).join(' ');
    if (!out.has(word) || isLeaf) out.set(word, isLeaf ? c.summary : (topics[topicId] ?? `${topicId} commands`));
  }
  return [...out].map(([word, summary]) => ({ word, summary })).sort((a, b) => a.word.localeCompare(b.word));
}

/** Every prefix that names a topic rather than a command, with "" (the top level) first. */
function prefixes(commands: readonly CompletionCommand[]): string[] {
  const set = new Set<string>(['']);
  for (const c of commands) {
    const parts = c.id.split(' ');
    for (let i = 1; i < parts.length; i++) set.add(parts.slice(0, i).join(' '));
  }
  return [...set];
}

function flagWords(c: CompletionCommand): string[] {
  return c.flags.flatMap((f) => [`--${f.name}`, ...(f.allowNo ? [`--no-${f.name}`] : [])]);
}

const oneLine = (s: string): string => s.split('\n')[0]!.replace(/\s+/g, ' ').trim();
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** For zsh _describe / compadd: "word:description" with colons escaped. */
const zdesc = (word: string, d: string): string => sq(`${word.replace(/:/g, '\\:')}:${oneLine(d).slice(0, 80)}`);

function byLength(commands: readonly CompletionCommand[]): CompletionCommand[] {
  return [...commands].sort((a, b) => b.id.length - a.id.length);
}

export function completionScript(shell: Shell, bin: string, commands: readonly CompletionCommand[], topics: Record<string, string> = {}): string {
  const fn = `_${bin.replace(/[^a-zA-Z0-9]/g, '_')}`;
  if (shell === 'bash') return bashScript(fn, bin, commands, topics);
  if (shell === 'zsh') return zshScript(fn, bin, commands, topics);
  return fishScript(fn, bin, commands, topics);
}

/** The shell command that lists the root's topic ids (nothing when there is no root). */
const topicIdsCommand = (bin: string): string => `${bin} completion topics 2>/dev/null`;

function bashScript(fn: string, bin: string, commands: readonly CompletionCommand[], topics: Record<string, string>): string {
  const topicList = topicIdsCommand(bin);
  const L: string[] = [
    `# ${bin} completion for bash, generated from the command manifest by \`${bin} completion bash\`.`,
    `# Install: ${bin} completion bash > ~/.local/share/bash-completion/completions/${bin}`,
    `#      or: echo 'eval "$(${bin} completion bash)"' >> ~/.bashrc`,
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmdpath="" w i cmd="" words="" flags="" args=0',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    w="${COMP_WORDS[i]}"',
    '    [[ $w == -* ]] && break',
    '    cmdpath="${cmdpath:+$cmdpath }$w"',
    '  done',
    '  case "$cmdpath" in',
  ];
  for (const c of byLength(commands)) L.push(`    ${sq(c.id)}|${sq(c.id)}' '*) cmd=${sq(c.id)} ;;`);
  L.push('  esac', '  if [[ -z $cmd ]]; then', '    case "$cmdpath" in');
  for (const p of prefixes(commands)) L.push(`      ${sq(p)}) words=${sq(nextWords(commands, p, topics).map((w) => w.word).join(' '))} ;;`);
  L.push('    esac', '    COMPREPLY=($(compgen -W "$words" -- "$cur"))', '    return', '  fi', '  case "$cmd" in');
  for (const c of commands) {
    L.push(`    ${sq(c.id)})`, `      flags=${sq(flagWords(c).join(' '))}; args=${c.hasArgs ? 1 : 0}`);
    const valued = c.flags.filter((f) => f.options?.length || f.topicIds);
    if (valued.length) {
      L.push('      case "$prev" in');
      for (const f of valued) {
        const words = f.topicIds ? `"$(${topicList})"` : sq(f.options!.join(' '));
        L.push(`        --${f.name}) COMPREPLY=($(compgen -W ${words} -- "$cur")); return ;;`);
      }
      L.push('      esac');
    }
    if (c.topicArg) L.push(`      [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "$(${topicList})" -- "$cur")); return; }`);
    L.push('      ;;');
  }
  L.push(
    '  esac',
    '  if [[ $cur == -* || $args == 0 ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); fi',
    '}',
    `complete -o default -F ${fn} ${bin}`,
    '',
  );
  return L.join('\n');
}

function zshScript(fn: string, bin: string, commands: readonly CompletionCommand[], topics: Record<string, string>): string {
  const L: string[] = [
    `#compdef ${bin}`,
    `# ${bin} completion for zsh, generated from the command manifest by \`${bin} completion zsh\`.`,
    `# Install: ${bin} completion zsh > "\${fpath[1]}/_${bin}"   (then restart zsh), or: eval "$(${bin} completion zsh)"`,
    `${fn}() {`,
    '  local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmdpath="" w i cmd="" args=0',
    '  local -a choices flags',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    w=${words[i]}',
    '    [[ $w == -* ]] && break',
    '    cmdpath="${cmdpath:+$cmdpath }$w"',
    '  done',
    '  case "$cmdpath" in',
  ];
  for (const c of byLength(commands)) L.push(`    ${sq(c.id)}|${sq(c.id)}' '*) cmd=${sq(c.id)} ;;`);
  L.push('  esac', '  if [[ -z $cmd ]]; then', '    case "$cmdpath" in');
  for (const p of prefixes(commands)) L.push(`      ${sq(p)}) choices=(${nextWords(commands, p, topics).map((w) => zdesc(w.word, w.summary)).join(' ')}) ;;`);
  L.push("    esac", "    _describe 'command' choices", '    return', '  fi', '  case "$cmd" in');
  for (const c of commands) {
    const fl = c.flags.flatMap((f) => [zdesc(`--${f.name}`, f.description), ...(f.allowNo ? [zdesc(`--no-${f.name}`, `not: ${f.description}`)] : [])]);
    L.push(`    ${sq(c.id)})`, `      flags=(${fl.join(' ')}); args=${c.hasArgs ? 1 : 0}`);
    const valued = c.flags.filter((f) => f.options?.length || f.topicIds);
    if (valued.length) {
      L.push('      case "$prev" in');
      for (const f of valued) L.push(`        --${f.name}) compadd -- ${f.topicIds ? `\${(f)"$(${topicIdsCommand(bin)})"}` : f.options!.map(sq).join(' ')}; return ;;`);
      L.push('      esac');
    }
    if (c.topicArg) L.push(`      [[ $cur != -* ]] && { compadd -- \${(f)"$(${topicIdsCommand(bin)})"}; return; }`);
    L.push('      ;;');
  }
  L.push('  esac', "  if [[ $cur == -* || $args == 0 ]]; then _describe 'flag' flags; else _default; fi", '}', `compdef ${fn} ${bin}`, '');
  return L.join('\n');
}

function fishScript(fn: string, bin: string, commands: readonly CompletionCommand[], topics: Record<string, string>): string {
  const L: string[] = [
    `# ${bin} completion for fish, generated from the command manifest by \`${bin} completion fish\`.`,
    `# Install: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish`,
    `function ${fn}_path`,
    '    set -l out',
    '    for w in (commandline -opc)[2..-1]',
    "        string match -q -- '-*' $w; and break",
    '        set out $out $w',
    '    end',
    "    string join ' ' -- $out",
    'end',
    `function ${fn}_at --argument-names prefix`,
    `    set -l p (${fn}_path)`,
    '    test "$p" = "$prefix"',
    'end',
    `function ${fn}_in --argument-names id`,
    `    set -l p (${fn}_path)`,
    '    test "$p" = "$id"; or string match -q -- "$id *" "$p"',
    'end',
    `complete -c ${bin} -f`,
  ];
  for (const p of prefixes(commands)) {
    for (const w of nextWords(commands, p, topics)) L.push(`complete -c ${bin} -n '${fn}_at "${p}"' -a ${sq(w.word)} -d ${sq(oneLine(w.summary).slice(0, 80))}`);
  }
  for (const c of commands) {
    if (c.topicArg) L.push(`complete -c ${bin} -n '${fn}_in "${c.id}"' -a ${sq(`(${topicIdsCommand(bin)})`)}`);
    for (const f of c.flags) {
      const value = f.takesValue ? (f.topicIds ? ` -x -a ${sq(`(${topicIdsCommand(bin)})`)}` : f.options?.length ? ` -x -a ${sq(f.options.join(' '))}` : ' -r') : '';
      L.push(`complete -c ${bin} -n '${fn}_in "${c.id}"' -l ${f.name}${value} -d ${sq(oneLine(f.description).slice(0, 80))}`);
      if (f.allowNo) L.push(`complete -c ${bin} -n '${fn}_in "${c.id}"' -l no-${f.name} -d ${sq(`not: ${oneLine(f.description).slice(0, 70)}`)}`);
    }
  }
  L.push('');
  return L.join('\n');
}
