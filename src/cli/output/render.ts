import { neutraliseText } from '../bulk/cells.js';
import { toCsv } from './csv.js';
import type { Io } from './io.js';
import { inert } from './quote.js';
import type { Output } from './result.js';
import { colorStatus, toDetailTable, toTable, toTsv } from './table.js';
import { type Column, cellText, recordId, type View } from './view.js';

/** The output modes of `-o`; `--json` is `-o json`. */
export const OUTPUT_MODES = ['table', 'json', 'csv', 'ids'] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

/** How to render: the mode, `--quiet`, and whether the mode was asked for explicitly. */
export interface RenderOptions {
  mode: OutputMode;
  quiet: boolean;
}

/** Pretty JSON with a final newline. */
export const toJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** A record's cells; `terminal`: for a table on one (coloured states, and text others wrote made inert). */
function cells(io: Io, columns: Column[], record: unknown, terminal: boolean): string[] {
  return columns.map((c) => {
    const text = cellText(c.get(record));
    if (!terminal) return text;
    return c.status ? colorStatus(io.color, inert(text)) : inert(text);
  });
}

function renderRows(io: Io, view: View, items: unknown[], mode: OutputMode, withHeader = true): string {
  const header = view.columns.map((c) => c.header);
  if (mode === 'ids') return items.map((r) => `${recordId(view, r)}\n`).join('');
  if (!withHeader) {
    // A later page of a list written page by page (`renderPages`): its rows only, as the first page's header said.
    const text = renderRows(io, view, items, mode);
    return text.slice(text.indexOf('\n') + 1);
  }
  // A cell a spreadsheet would run as a formula (a name someone else chose: `=HYPERLINK(…)`) is neutralised, as
  // `users export` does.
  if (mode === 'csv')
    return toCsv(
      header,
      items.map((r) => cells(io, view.columns, r, false).map(neutraliseText)),
    );
  if (!io.stdoutTty)
    return toTsv(
      header,
      items.map((r) => cells(io, view.columns, r, false)),
    );
  return toTable(
    io.color,
    header,
    items.map((r) => cells(io, view.columns, r, true)),
  );
}

/** Writes a command's output: data on stdout, the "done" notice on stderr. */
export function render(io: Io, output: Output, opts: RenderOptions): void {
  const { mode } = opts;
  switch (output.kind) {
    case 'raw':
      if (output.value !== undefined) io.out(toJson(output.value));
      return;
    case 'text':
      io.out(output.text);
      return;
    case 'done':
      if (!opts.quiet) io.err(output.message);
      return;
    case 'pages':
      throw new Error('internal: pages are rendered by renderPages');
    case 'list':
      if (mode === 'json') io.out(toJson(output.json ?? output.items));
      else if (mode === 'table' && io.stdoutTty && output.items.length === 0) {
        if (!opts.quiet) io.err('No results.');
      } else io.out(renderRows(io, output.view, output.items, mode));
      // For the person reading the table; a script reads the rows (or pages with --all) and gets nothing more.
      if (output.more && mode === 'table' && io.stdoutTty && !opts.quiet) io.err(output.more);
      return;
    case 'record':
      renderRecord(io, output, mode, opts.quiet);
  }
}

function renderRecord(io: Io, output: Extract<Output, { kind: 'record' }>, mode: OutputMode, quiet: boolean): void {
  if (mode === 'json') io.out(toJson(output.value));
  else if (mode !== 'table') io.out(renderRows(io, output.view, [output.value], mode));
  else if (quiet && output.changed) {
    // --quiet after a change: the exit code says it worked; -o/--json still print the record.
  } else if (!io.stdoutTty) io.out(renderRows(io, output.view, [output.value], mode));
  else {
    const fields = output.view.detail ?? output.view.columns;
    const values = cells(io, fields, output.value, true);
    io.out(
      toDetailTable(
        io.color,
        fields.map((f, i) => [f.header, values[i] ?? '']),
      ),
    );
  }
}

/** A list's pages, as `render` takes them: in `renderPages`. */
type Pages = Extract<Output, { kind: 'pages' }>;

/**
 * Writes every page of a list as it arrives, in the bytes `render` would give the whole list (one JSON array, one
 * header), and stops — `OutputClosed` — as soon as stdout's reader is gone, so that `| head -1` does not fetch the rest.
 * A table on a terminal needs every row for its widths: it is drawn once all pages have come.
 */
export async function renderPages(io: Io, output: Pages, opts: RenderOptions): Promise<void> {
  const { mode } = opts;
  if (mode === 'table' && io.stdoutTty) {
    const items: unknown[] = [];
    for await (const page of output.pages) items.push(...page);
    render(io, { kind: 'list', items, view: output.view }, opts);
    return;
  }
  let first = true;
  for await (const page of output.pages) {
    io.out(mode === 'json' ? jsonItems(page, first) : renderRows(io, output.view, page, mode, first));
    if (mode !== 'json' || page.length > 0) first = false;
    io.checkStdout();
  }
  if (mode === 'json') io.out(first ? '[]\n' : '\n]\n');
}

/** Items of a JSON array written piece by piece, as `toJson` would indent them in the whole array. */
function jsonItems(items: unknown[], first: boolean): string {
  const indented = (item: unknown) => JSON.stringify(item, null, 2).replaceAll('\n', '\n  ');
  return items.map((item, i) => `${first && i === 0 ? '[\n  ' : ',\n  '}${indented(item)}`).join('');
}
