import type { Command } from 'commander';
import { type Completion, completes } from './completion-values.js';
import type { Context } from './context.js';
import { quoted } from './output/quote.js';
import type { Output } from './output/result.js';
import { renderOutput } from './output/terminal.js';
import { confirm } from './prompt.js';

/**
 * One verb of a noun: its arguments and options, how commander's values become a typed options object, what it
 * asks before doing harm, and `run`, which returns data (or throws a typed error) and never prints.
 */
export interface Verb<O> {
  name: string;
  /** commander argument syntax, e.g. `<id>` or `<project> <env> <pairs...>`. */
  args?: string;
  summary: string;
  /** At least one; shown under "Examples:" in `--help` and in the reference. */
  examples: string[];
  /** What completes each positional argument (file names of a `<file>` need no saying). */
  argValues?: (Completion | undefined)[];
  /** Adds the verb's own options. */
  options?: (cmd: Command) => void;
  /** Positional values (variadic ones as arrays) and option values → the typed options. */
  parse: (args: any[], raw: Record<string, any>) => O;
  /** For destructive verbs: what will be done, e.g. `delete user user_123` (asked on a TTY, else `--yes`). */
  confirm?: (opts: O) => string;
  /** Refusals that need the configuration (or other state), made before `confirm` asks anything. */
  check?: (opts: O, ctx: Context) => Promise<void>;
  /**
   * How the API's field names read on this command line, so that a refusal speaks in the user's terms: a field path,
   * or its first segment, → the flag or argument it came from (`domains.1` → `--domain "acme"`, `name` → `--name`).
   * `--json` keeps the API's own error object.
   */
  fields?: (opts: O) => Record<string, string>;
  run: (opts: O, ctx: Context) => Promise<Output>;
}

/** Declares a verb (keeps its options type tied to `parse` and `run`). */
export function verb<O>(spec: Verb<O>): Verb<O> {
  return spec;
}

const EXAMPLES = new WeakMap<Command, string[]>();

/** The examples a command was registered with (for the reference generator). */
export function examplesOf(cmd: Command): string[] {
  return EXAMPLES.get(cmd) ?? [];
}

/** Attaches examples to a command: in its help text and for the reference. */
export function withExamples(cmd: Command, examples: string[]): Command {
  EXAMPLES.set(cmd, examples);
  return cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
}

/** Terms for a repeatable flag (see `Verb.fields`): `domains.0` → `--domain "acme.com"`, one for each value given. */
export function eachValue(field: string, flag: string, values: readonly string[] | undefined): Record<string, string> {
  return Object.fromEntries((values ?? []).map((v, i) => [`${field}.${i}`, `${flag} ${quoted(v)}`]));
}

/** An API refusal with its fields named as the command line gave them (the error itself, reworded). */
function inUserTerms(err: unknown, terms: Record<string, string>): unknown {
  const e = err as Error & { details?: { field: string; message: string }[] };
  if (!(err instanceof Error) || !Array.isArray(e.details)) return err;
  let message = e.message;
  const details = e.details.map((d) => {
    const term = terms[d.field] ?? terms[d.field.split('.')[0] as string];
    if (!term) return d;
    message = message.replace(`${d.field}: `, () => `${term}: `); // a function: no `$&` patterns in the term
    return { ...d, field: term };
  });
  Object.assign(e, { details, message });
  return e;
}

/** Runs a verb as commander's action would: parse, check, confirm, run, render. */
export async function execute<O>(spec: Verb<O>, cmd: Command, ctx: Context): Promise<void> {
  const opts = spec.parse(cmd.processedArgs, cmd.opts());
  await spec.check?.(opts, ctx);
  if (spec.confirm) await confirm(ctx.io, ctx.globals().yes === true, spec.confirm(opts));
  let output: Output;
  try {
    output = await spec.run(opts, ctx);
  } catch (err) {
    throw spec.fields ? inUserTerms(err, spec.fields(opts)) : err;
  }
  await renderOutput(ctx, output);
}

function completeArguments(cmd: Command, values: Verb<unknown>['argValues']): void {
  values?.forEach((v, i) => {
    const argument = cmd.registeredArguments[i];
    if (v && argument) completes(argument, v);
  });
}

/** Registers verbs on a command: `plat <noun> <verb>`. */
export function addVerbs(noun: Command, ctx: Context, verbs: Verb<any>[]): void {
  for (const spec of verbs) {
    const cmd = noun.command(spec.args ? `${spec.name} ${spec.args}` : spec.name).description(spec.summary);
    completeArguments(cmd, spec.argValues);
    spec.options?.(cmd);
    withExamples(cmd, spec.examples);
    cmd.action(async (...params: unknown[]) => execute(spec, params.at(-1) as Command, ctx));
  }
}

/** Configures a command that is itself the verb (`plat serve`, `plat api`). */
export function asLeaf<O>(cmd: Command, ctx: Context, spec: Omit<Verb<O>, 'name'>): void {
  if (spec.args) cmd.arguments(spec.args);
  completeArguments(cmd, spec.argValues);
  cmd.description(spec.summary);
  spec.options?.(cmd);
  withExamples(cmd, spec.examples);
  cmd.action(async (...params: unknown[]) => execute({ ...spec, name: cmd.name() }, params.at(-1) as Command, ctx));
}
