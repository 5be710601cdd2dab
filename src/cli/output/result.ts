import type { View } from './view.js';

/** What a verb's `run` returns; the renderer turns it into output by the chosen mode. */
export type Output =
  /** One record (get, create, update, state moves). `changed`: it was written, so `--quiet` may skip it. */
  | { kind: 'record'; value: unknown; view: View; changed?: boolean }
  /** A list of records: a JSON array with `--json`, unless `json` gives another shape (`auth status`). */
  | { kind: 'list'; items: unknown[]; view: View; json?: unknown }
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
/** Builds a list output. */
export const list = (items: unknown[], view: View): Output => ({ kind: 'list', items, view });
/** Builds a "done" output for commands that leave nothing to print. */
export const done = (message: string): Output => ({ kind: 'done', message });
