// `plat users import --from` (docs/migrate.md): another system's export, its layout told by its content whatever the
// file's name — the first character that is not blank: `[` a JSON array; `{` JSON lines when the first line is a whole
// object (and not the object around the provider's array), else an object around an array (`{"users": [ … ]}`);
// anything else CSV, a header line first. Then the readers of plat's own files read it (import-csv.ts,
// import-json.ts), the provider's records making the rows (providers/).
import type { Readable } from 'node:stream';
import { InvalidValueError } from '../errors.js';
import { csvRows } from './import-csv.js';
import { jsonArrayRows, jsonLinesRows, MAX_ELEMENT_CHARS } from './import-json.js';
import { peek } from './import-peek.js';
import type { Halt, Row } from './import-rows.js';
import { isFields } from './providers/fields.js';
import type { FirebaseParameters, Layout, Provider } from './providers/provider.js';

/** The layouts as messages name them. */
const LAYOUT_NAMES: Record<Layout, string> = {
  array: 'a JSON array',
  lines: 'JSON lines',
  csv: 'CSV',
  member: 'a JSON object',
};

/** Whether bytes hold a whole first line that is not blank (a line break after something that is not a space). */
function firstLineIn(bytes: Buffer): boolean {
  let seen = false;
  for (const b of bytes) {
    if (b === 0x0a || b === 0x0d) {
      if (seen) return true;
    } else if (b !== 0x20 && b !== 0x09) seen = true;
  }
  return false;
}

/** The layout of a file that starts with `start` (its first line that is not blank, whole); `member`: the provider's. */
export function layoutOf(start: string, member: string | undefined): Layout {
  const text = start.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('[')) return 'array';
  if (!text.startsWith('{')) return 'csv';
  let first: unknown;
  try {
    first = JSON.parse(text.split(/\r\n|\n|\r/, 1)[0] as string);
  } catch {
    return 'member'; // an object over several lines
  }
  return member !== undefined && isFields(first) && Array.isArray(first[member]) ? 'member' : 'lines';
}

/**
 * The rows of a provider's export (`open`ed when the first row is asked for; `name` for messages). A layout the
 * provider does not export is refused (exit 7) before any row.
 */
export async function* providerRows(
  open: () => Readable,
  halt: Halt,
  provider: Provider,
  firebase: FirebaseParameters,
  name: string,
): AsyncGenerator<Row> {
  const input = open();
  let ahead: Awaited<ReturnType<typeof peek>>;
  try {
    ahead = await peek(input, firstLineIn, MAX_ELEMENT_CHARS);
  } catch (err) {
    input.destroy();
    throw err;
  }
  const layout = ahead.text.trim() === '' ? undefined : layoutOf(ahead.text, provider.member);
  if (layout === undefined || !provider.layouts.includes(layout)) {
    ahead.rest.destroy();
    input.destroy();
    const what = layout === undefined ? 'empty' : LAYOUT_NAMES[layout];
    throw new InvalidValueError(`${name} is ${what}: ${provider.reads}; nothing was imported`);
  }
  const records = provider.records(firebase);
  const rest = () => ahead.rest;
  if (layout === 'csv') yield* csvRows(rest, halt, records);
  else if (layout === 'lines') yield* jsonLinesRows(rest, halt, records);
  else yield* jsonArrayRows(rest, halt, records, layout === 'member' ? provider.member : undefined);
}
