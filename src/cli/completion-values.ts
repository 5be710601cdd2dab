import type { Argument, Option } from 'commander';

/**
 * What completes a flag's or an argument's value: its choices (the constants the verb checks it with), file names
 * (`@files`: after an `@`, as `--data @FILE`), or the configured profiles (asked of `plat profiles list -o ids`).
 */
export type Completion = readonly string[] | 'files' | '@files' | 'profiles';

const DECLARED = new WeakMap<Option | Argument, Completion>();

/** Declares what completes an option's or argument's value; help texts are left as they are. */
export function completes<T extends Option | Argument>(target: T, values: Completion): T {
  DECLARED.set(target, values);
  return target;
}

/** A value named `<file>` (or `[file]`, `<file...>`) is a file name. */
const FILE_VALUE = /^[<[]file(\.\.\.)?[>\]]$/;

/** What completes a value: as declared, else commander's own choices, else file names for a `<file>`. */
export function completionOf(target: Option | Argument): Completion | undefined {
  const declared = DECLARED.get(target);
  if (declared) return declared;
  if (target.argChoices) return target.argChoices;
  const valueName = 'flags' in target ? target.flags.split(/[ ,|]+/).at(-1) : `<${target.name()}>`;
  return valueName && FILE_VALUE.test(valueName) ? 'files' : undefined;
}
