import { eventTypeSchema } from '../contract/webhooks.js';
import { InvalidValueError } from './errors.js';
import { quoted } from './output/quote.js';

/**
 * Event types as given to a repeatable flag (`--event`, `--type`): each checked as the API checks a webhook's, a
 * malformed one refused before anything is sent (exit 7, docs/cli.md, "Exit codes"); each kept once, in order.
 */
export function eventTypes(flag: string, values: readonly string[]): string[] {
  for (const v of values) {
    const checked = eventTypeSchema.safeParse(v);
    if (!checked.success) throw new InvalidValueError(`${flag} ${quoted(v)}: ${checked.error.issues[0]?.message}`);
  }
  return [...new Set(values)];
}
