import type { Command, Option } from 'commander';
import { type Completion, completionOf } from './completion-values.js';

/** A flag as completion sees it: its spellings, whether it takes a value, and what completes that value. */
interface Flag {
  names: string[];
  summary: string;
  takesValue: boolean;
  values?: Completion;
  short?: string;
  long?: string;
}

/** A command of the tree: its path below `plat` (`users list`), flags, positional arguments, and subcommands. */
interface Cmd {
  path: string;
  name: string;
  summary: string;
  flags: Flag[];
  args: (Completion | undefined)[];
  /** The last argument takes any number of values. */
  variadic: boolean;
  subs: Cmd[];
}

/** The part of the program completion needs: the global flags and the tree of commands below the root. */
interface Spec {
  globals: Flag[];
  commands: Cmd[];
}

const flagOf = (o: Option): Flag => ({
  names: [o.long, o.short].filter((f): f is string => !!f),
  summary: o.description,
  takesValue: o.required || o.optional,
  values: completionOf(o),
  short: o.short,
  long: o.long,
});

function cmdOf(c: Command, parent: string): Cmd {
  const path = parent ? `${parent} ${c.name()}` : c.name();
  return {
    path,
    name: c.name(),
    summary: c.description(),
    flags: (c.options as Option[]).map(flagOf),
    args: c.registeredArguments.map(completionOf),
    variadic: c.registeredArguments.at(-1)?.variadic === true,
    subs: c.commands.map((s) => cmdOf(s, path)),
  };
}

/** Reads the command tree of a fully registered program. */
export function specOf(program: Command): Spec {
  return { globals: (program.options as Option[]).map(flagOf), commands: program.commands.map((c) => cmdOf(c, '')) };
}

const everyCommand = (spec: Spec): Cmd[] => {
  const all: Cmd[] = [];
  const walk = (c: Cmd) => {
    all.push(c);
    c.subs.forEach(walk);
  };
  spec.commands.forEach(walk);
  return all;
};

const sq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
const dq = (s: string) => `"${s}"`;
const names = (flags: Flag[]) => flags.flatMap((f) => f.names);

/** The shell statement that completes a value: sets `list` (words) or `_plat_kind` (files). */
function action(values: Completion): string {
  if (values === 'files' || values === '@files') return `_plat_kind=${values}`;
  if (values === 'profiles') return 'list=$(plat profiles list -o ids 2>/dev/null)';
  return `list=${sq(values.join(' '))}`;
}

/**
 * The completion logic, in the shell language bash and zsh (under ksh emulation) share: from `COMP_WORDS` and
 * `COMP_CWORD`, it sets `COMPREPLY` to the words that fit, or `_plat_kind` to `files` (or `@files`, file names after
 * an `@`) for the shell to complete file names its own way.
 */
function findFunctions(spec: Spec): string {
  const commands = everyCommand(spec);
  const globalTakes = names(spec.globals.filter((f) => f.takesValue));
  const takes = commands
    .map((c) => names(c.flags.filter((f) => f.takesValue)).map((n) => dq(`${c.path} ${n}`)))
    .filter((keys) => keys.length > 0)
    .map((keys) => `    ${keys.join('|')}) ;;`);
  const values: string[] = [];
  for (const c of commands) {
    for (const f of c.flags)
      if (f.values) values.push(`    ${f.names.map((n) => dq(`${c.path} ${n}`)).join('|')}) ${action(f.values)} ;;`);
    if (c.args.some(Boolean)) {
      c.args.forEach((a, i) => {
        const key = c.variadic && i === c.args.length - 1 ? `${dq(`${c.path} #`)}*` : dq(`${c.path} #${i}`);
        values.push(`    ${key}) ${a ? action(a) : 'return 1'} ;;`);
      });
    }
  }
  for (const f of spec.globals)
    if (f.values) values.push(`    ${f.names.map((n) => `*${dq(` ${n}`)}`).join('|')}) ${action(f.values)} ;;`);
  const subs = [
    `    "") list=${sq(spec.commands.map((c) => c.name).join(' '))} ;;`,
    ...commands
      .filter((c) => c.subs.length > 0)
      .map((c) => `    ${dq(c.path)}) list=${sq(c.subs.map((s) => s.name).join(' '))} ;;`),
  ];
  const flags = commands
    .filter((c) => c.flags.length > 0)
    .map((c) => `    ${dq(c.path)}) list=${sq(names(c.flags).join(' '))} ;;`);
  return `# Whether a flag takes a value: $1 is "COMMAND FLAG".
_plat_takes() {
  case $1 in
    ${globalTakes.map((n) => `*${dq(` ${n}`)}`).join('|')}) ;;
${takes.join('\n')}
    *) return 1 ;;
  esac
}

# What completes a value: $1 is "COMMAND FLAG", or "COMMAND #N" for the Nth argument (from 0).
_plat_values() {
  case $1 in
${values.join('\n')}
    *) return 1 ;;
  esac
}

# The subcommands of a command ("" is plat itself).
_plat_subs() {
  case $1 in
${subs.join('\n')}
  esac
}

# The flags of a command.
_plat_flags() {
  case $1 in
${flags.join('\n')}
  esac
}

_plat_find() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd="" flag="" list="" w i n=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $flag ]]; then
      [[ $w == = ]] || flag="" # bash splits --flag=value at the =
      continue
    fi
    case $w in
      -*=*) ;;
      -*) _plat_takes "$cmd $w" && flag=$w ;;
      *)
        list=""
        ((n == 0)) && _plat_subs "$cmd"
        if [[ " $list " == *" $w "* ]]; then cmd=\${cmd:+$cmd }$w; else n=$((n + 1)); fi
        ;;
    esac
  done
  [[ -n $flag && $cur == = ]] && cur=""
  list=""
  if [[ -n $flag ]]; then
    _plat_values "$cmd $flag"
  elif [[ $cur == -* ]]; then
    _plat_flags "$cmd"
    list="$list ${names(spec.globals).join(' ')}"
  else
    ((n == 0)) && _plat_subs "$cmd"
    [[ -z $list ]] && ! _plat_values "$cmd #$n" && _plat_flags "$cmd"
  fi
  for w in $list; do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done
  return 0
}`;
}

/** bash: `source <(plat completion bash)`. */
export function bashScript(spec: Spec): string {
  return `# plat completion for bash: source <(plat completion bash)
${findFunctions(spec)}

_plat() {
  local _plat_kind=words cur=\${COMP_WORDS[COMP_CWORD]} f
  COMPREPLY=()
  _plat_find
  [[ $cur == = ]] && cur=""
  local IFS=$'\\n' # file names may hold spaces
  case $_plat_kind in
    files)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      ;;
    @files)
      [[ $cur == @* && $cur != @- ]] || return 0
      for f in $(compgen -f -- "\${cur#@}"); do
        if [[ -d $f ]]; then COMPREPLY+=("@$f/"); else COMPREPLY+=("@$f"); fi
      done
      [[ \${#COMPREPLY[@]} == 1 && \${COMPREPLY[0]} == */ ]] && compopt -o nospace 2>/dev/null
      ;;
  esac
  return 0
}
complete -F _plat plat
`;
}

/** zsh: the same logic, with zsh's own file completion (`source <(plat completion zsh)`, after compinit). */
export function zshScript(spec: Spec): string {
  return `# plat completion for zsh: source <(plat completion zsh)
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit; }
${findFunctions(spec)}

_plat() {
  local _plat_kind=words COMP_CWORD=$((CURRENT - 1))
  local -a COMP_WORDS COMPREPLY
  COMP_WORDS=("\${words[@]}")
  # The shared functions count words from 0 and split lists as bash does.
  () { emulate -L ksh; _plat_find; }
  case $_plat_kind in
    files) _files ;;
    @files) compset -P @ && _files ;;
    *) compadd -a COMPREPLY ;;
  esac
}
compdef _plat plat
`;
}

/** fish: `plat completion fish > ~/.config/fish/completions/plat.fish`. */
export function fishScript(spec: Spec): string {
  const lines = ['# plat completion for fish', 'complete -c plat -f'];
  const valueArgs = (values: Completion | undefined): string[] => {
    if (values === undefined || values === '@files') return [];
    if (values === 'files') return ['-F'];
    if (values === 'profiles') return ['-a', sq('(plat profiles list -o ids 2>/dev/null)')];
    return ['-a', sq(values.join(' '))];
  };
  const flag = (f: Flag, condition?: string) => {
    const parts = ['complete -c plat'];
    if (condition) parts.push(`-n ${sq(condition)}`);
    if (f.long) parts.push(`-l ${f.long.replace(/^--/, '')}`);
    if (f.short) parts.push(`-s ${f.short.replace(/^-/, '')}`);
    if (f.takesValue) parts.push('-r', ...valueArgs(f.values));
    parts.push(`-d ${sq(f.summary)}`);
    return parts.join(' ');
  };
  const args = (c: Cmd, condition: string) => {
    const first = c.args[0];
    if (first) lines.push(['complete -c plat', `-n ${sq(condition)}`, ...valueArgs(first)].join(' '));
  };
  for (const f of spec.globals) lines.push(flag(f));
  for (const n of spec.commands) {
    lines.push(`complete -c plat -n '__fish_use_subcommand' -a ${n.name} -d ${sq(n.summary)}`);
    const verbNames = n.subs.map((v) => v.name).join(' ');
    const inNoun = `__fish_seen_subcommand_from ${n.name}`;
    for (const f of n.flags) lines.push(flag(f, inNoun));
    if (n.subs.length === 0) args(n, inNoun);
    for (const v of n.subs) {
      lines.push(
        `complete -c plat -n ${sq(`${inNoun}; and not __fish_seen_subcommand_from ${verbNames}`)} -a ${v.name} -d ${sq(v.summary)}`,
      );
      for (const f of v.flags) lines.push(flag(f, `${inNoun}; and __fish_seen_subcommand_from ${v.name}`));
      args(v, `${inNoun}; and __fish_seen_subcommand_from ${v.name}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
