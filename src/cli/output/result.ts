import type { View } from './view.js';

/** What a verb's `run` returns; the renderer turns it into output by the chosen mode. */
export type Output =
  /** One record (get, create, update, state moves). `changed`: it was written, so `--quiet` may skip it. */
  | { kind: 'record'; value: unknown; view: View; changed?: boolean }
  /**
   * A list of records: a JSON array with `--json`, unless `json` gives another shape (`auth status`). `more`: one
   * page of several, what it leaves out and how to see the rest (a note under a table on a terminal only).
   */
  | { kind: 'list'; items: unknown[]; view: View; json?: unknown; more?: string }
  /**
   * Every page of a list (`--all`), written as each page arrives — but a table on a terminal, drawn once all have
   * come — so that `| head` stops the listing as soon as it has read enough.
   */
  | { kind: 'pages'; pages: AsyncIterable<unknown[]>; view: View }
  /** Nothing to print on stdout (a delete); the message goes to stderr unless `--quiet`. */
  | { kind: 'done'; message: string }
  /** Text printed as is on stdout (a path, a completion script). */
  | { kind: 'text'; text: string }
  /** Raw JSON (the `api` command), printed as JSON whatever the mode. */
  | { kind: 'raw'; value: unknown };

/** Builds a record output. */
export const record = (value: unknown, view: View, changed = false): Output => ({
  kind: 'record',
  value,
  view,
  changed,
});
/** Builds a list output; `more` says what a page leaves out. */
export const list = (items: unknown[], view: View, more?: string): Output =>
  more === undefined ? { kind: 'list', items, view } : { kind: 'list', items, view, more };
/** Builds a "done" output for commands that leave nothing to print. */
export const done = (message: string): Output => ({ kind: 'done', message });
