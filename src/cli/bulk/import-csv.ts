import type { Readable } from 'node:stream';
import { type CsvError, type Info, type Options, parse } from 'csv-parse';
import { InvalidValueError } from '../errors.js';
import { hasLineBreak, peek } from './import-peek.js';
import { type CsvRecord, failedRow, type Halt, platRecords, type RecordReader, type Row } from './import-rows.js';

/** The longest record read (a quote never closed would otherwise gather the rest of the file): the API's body limit. */
export const MAX_RECORD_CHARS = 1024 * 1024;

/** What csv-parse says, in the words of an import's errors file. */
const SYNTAX: Record<string, string> = {
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field (quote the whole field and double the quote: "a""b")',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field goes on after its closing quote',
  CSV_QUOTE_NOT_CLOSED: 'a quote opened on this line is never closed',
  CSV_MAX_RECORD_SIZE: `a record longer than ${MAX_RECORD_CHARS} characters (is a quote never closed?)`,
};

/**
 * After these, csv-parse no longer knows where records start (it reads on as if inside quotes): the rest of the file
 * cannot be read, so the import stops there rather than skip rows it cannot see.
 */
const LOST: ReadonlySet<string> = new Set(['CSV_INVALID_CLOSING_QUOTE', 'CSV_QUOTE_NOT_CLOSED', 'CSV_MAX_RECORD_SIZE']);

/** What one parsed record stands for, in file order: the header's columns, or a row (`last`: nothing after it counts). */
type Parsed = { header: CsvRecord | string; line: number } | { row: Row; last?: boolean };

/** How much of the input is read, at most, to find the header's end and its delimiter. */
const HEAD_BYTES = 64 * 1024;

/**
 * The delimiter of a header line: a comma if there is one outside quotes; else a tab (Excel's "Unicode text" is
 * tab-separated), else a semicolon (Excel's CSV where the decimal mark is a comma); else a comma. No column a header
 * may name holds one of them, so a header that is not split right would be refused anyway.
 */
export function delimiterOf(header: string): ',' | '\t' | ';' {
  let [quoted, tab, semicolon] = [false, false, false];
  for (const c of header) {
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === ',') return ',';
    else if (c === '\t') tab = true;
    else if (c === ';') semicolon = true;
    else if (c === '\n' || c === '\r') break;
  }
  return tab ? '\t' : semicolon ? ';' : ',';
}

/** Line breaks inside a record's fields (quoted ones keep theirs). */
const breaks = (cells: readonly string[]) => cells.reduce((n, c) => n + (c.match(/\r\n|\r|\n/g)?.length ?? 0), 0);

/**
 * The rows of a CSV file (opened by `open` when the first row is asked for; RFC 4180: quotes, commas and line breaks in fields; UTF-8 with or without a BOM; CRLF, LF
 * or CR line ends, even mixed), streamed. Each row carries the physical line it starts on, the header being line 1
 * (blank lines are skipped and counted). A header with an unknown column is refused (exit 7) before any row is
 * given; a malformed record fails its row, and one after which records can no longer be told apart ends the rows
 * with `halt` set.
 */
export async function* csvRows(
  open: () => Readable,
  halt: Halt,
  records: RecordReader = platRecords,
): AsyncGenerator<Row> {
  const opened = open();
  let ahead: Awaited<ReturnType<typeof peek>>;
  try {
    ahead = await peek(opened, hasLineBreak, HEAD_BYTES);
  } catch (err) {
    opened.destroy();
    throw err;
  }
  const input = ahead.rest;
  // Lines are counted here, from each record's own line breaks and the blank lines csv-parse skipped: its own count
  // takes a CRLF inside quotes for two lines. Its count serves only for a skipped record, whose cells are unknown,
  // corrected by how far it had drifted from ours.
  let end = 0; // the line the previous record ended on
  let empties = 0; // blank lines skipped so far
  let drift = 0;
  let record: CsvRecord | undefined;
  const options: Options<Parsed, string[]> = {
    bom: true,
    delimiter: delimiterOf(ahead.text.replace(/^\uFEFF/, '')),
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_empty_lines: true,
    relax_column_count: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_CHARS,
    on_skip: (err: CsvError | undefined) => {
      if (!err || halt.at) return undefined;
      const info = err as unknown as Info;
      const line = end + 1 + (info.empty_lines - empties);
      [end, empties] = [Math.max(line, info.lines - drift), info.empty_lines];
      const last = LOST.has(err.code);
      if (last) halt.at = { line, message: SYNTAX[err.code] as string };
      const message = `malformed CSV: ${SYNTAX[err.code] ?? err.message}`;
      // Pushed among the records, so that rows keep the file's order.
      parser.push({ row: failedRow(line, null, 'invalid_request', message), last } satisfies Parsed);
      return undefined;
    },
    on_record: (cells, info): Parsed | null => {
      if (halt.at) return null;
      const line = end + 1 + (info.empty_lines - empties);
      [end, empties] = [line + breaks(cells), info.empty_lines];
      drift = info.lines - end;
      if (record) return { row: record(line, cells) };
      const header = records.csv(cells);
      if (typeof header !== 'string') record = header;
      return { header, line };
    },
  };
  // csv-parse's types tie on_record's result to string[] records unless `columns` is given: ours is Parsed.
  const parser = parse(options as unknown as Options);
  input.on('error', (err) => parser.destroy(err));
  // Given up before its end (Ctrl-C): the parser would wait for the rest.
  input.once('close', () => input.readableEnded || parser.destroy());
  input.pipe(parser);
  let headed = false;
  try {
    for await (const parsed of parser as AsyncIterable<Parsed>) {
      if ('row' in parsed) {
        yield parsed.row;
        if (parsed.last) return;
      } else if (typeof parsed.header === 'string') {
        throw new InvalidValueError(`line ${parsed.line}: ${parsed.header}; nothing was imported`);
      } else headed = true;
    }
  } finally {
    input.unpipe(parser);
    input.destroy();
    parser.destroy();
  }
  if (!headed) throw new InvalidValueError('the file is empty: expected a header line naming an email column');
}
