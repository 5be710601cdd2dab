import type { Command, Option } from 'commander';

/** The part of the program completion needs: nouns, their verbs, and each one's flags. */
interface Spec {
  globals: Option[];
  nouns: {
    name: string;
    summary: string;
    flags: Option[];
    verbs: { name: string; summary: string; flags: Option[] }[];
  }[];
}

/** Reads the command tree of a fully registered program. */
export function specOf(program: Command): Spec {
  return {
    globals: program.options as Option[],
    nouns: program.commands.map((noun) => ({
      name: noun.name(),
      summary: noun.description(),
      flags: noun.options as Option[],
      verbs: noun.commands.map((v) => ({ name: v.name(), summary: v.description(), flags: v.options as Option[] })),
    })),
  };
}

const longs = (options: Option[]) => options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));
const takesValue = (o: Option) => o.required || o.optional;
const sq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** bash: `source <(plat completion bash)`. */
export function bashScript(spec: Spec): string {
  const valueFlags = spec.globals.filter(takesValue).flatMap((o) => longs([o]));
  const globals = longs(spec.globals).join(' ');
  const nounCases = spec.nouns
    .map((n) => {
      const verbs = n.verbs.map((v) => v.name).join(' ');
      const verbCases = n.verbs.map((v) => `        ${v.name}) words="${longs(v.flags).join(' ')}" ;;`).join('\n');
      return [
        `    ${n.name})`,
        `      if [[ -z $verb && -n "${verbs}" ]]; then words="${verbs}"; else case $verb in`,
        verbCases,
        `        *) words="${longs(n.flags).join(' ')}" ;;`,
        '      esac; fi ;;',
      ].join('\n');
    })
    .join('\n');
  return `# plat completion for bash: source <(plat completion bash)
_plat() {
  local cur=\${COMP_WORDS[COMP_CWORD]} noun="" verb="" words="" i w skip=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $skip ]]; then skip=""; continue; fi
    case "$w" in
      ${valueFlags.join('|')}) skip=1 ;;
      -*) ;;
      *) if [[ -z $noun ]]; then noun=$w; elif [[ -z $verb ]]; then verb=$w; fi ;;
    esac
  done
  case "$noun" in
    "") words="${spec.nouns.map((n) => n.name).join(' ')}" ;;
${nounCases}
  esac
  if [[ $cur == -* ]]; then words="$words ${globals}"; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _plat plat
`;
}

/** zsh: the bash function through bashcompinit (`source <(plat completion zsh)`). */
export function zshScript(spec: Spec): string {
  return `# plat completion for zsh: source <(plat completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(spec).replace(/^# .*\n/, '')}`;
}

/** fish: `plat completion fish > ~/.config/fish/completions/plat.fish`. */
export function fishScript(spec: Spec): string {
  const lines = ['# plat completion for fish', 'complete -c plat -f'];
  const flag = (o: Option, condition?: string) => {
    const parts = ['complete -c plat'];
    if (condition) parts.push(`-n ${sq(condition)}`);
    if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
    if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
    if (takesValue(o)) parts.push('-r');
    parts.push(`-d ${sq(o.description)}`);
    return parts.join(' ');
  };
  for (const o of spec.globals) lines.push(flag(o));
  for (const n of spec.nouns) {
    lines.push(`complete -c plat -n '__fish_use_subcommand' -a ${n.name} -d ${sq(n.summary)}`);
    const verbNames = n.verbs.map((v) => v.name).join(' ');
    for (const o of n.flags) lines.push(flag(o, `__fish_seen_subcommand_from ${n.name}`));
    for (const v of n.verbs) {
      const inNoun = `__fish_seen_subcommand_from ${n.name}`;
      lines.push(
        `complete -c plat -n ${sq(`${inNoun}; and not __fish_seen_subcommand_from ${verbNames}`)} -a ${v.name} -d ${sq(v.summary)}`,
      );
      for (const o of v.flags) lines.push(flag(o, `${inNoun}; and __fish_seen_subcommand_from ${v.name}`));
    }
  }
  return `${lines.join('\n')}\n`;
}
