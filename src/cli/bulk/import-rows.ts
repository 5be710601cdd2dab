// What one row of an import file becomes (`plat users import`, docs/cli.md, "Importing users"): a batch item the API is
// sent, or a failure the CLI can tell by itself, which goes to the errors file without stopping the run.
import type { ErrorCode } from '../../contract/errors.js';
import { type UserBatchItem, userBatchItemSchema } from '../../contract/users.js';
import { METADATA_COLUMN, metadataValue, restoreText, teamsOfCell } from './cells.js';
import { HASH_FORMS, hashProblem } from './hashes.js';

/** Why a row failed: an error code of the API's (`validation_error`, `invalid_request`…) and a message. */
export interface RowError {
  code: ErrorCode;
  message: string;
}

/** One row: its physical line (where it starts), its e-mail as given, and either an item to send or its failure. */
export type Row = { line: number; email: string | null } & ({ item: UserBatchItem } | { error: RowError });

/** The fields a row of plat's own files may set (a password hash as a self-describing string: docs/migrate.md). */
export const ITEM_FIELDS = ['email', 'name', 'role', 'teams', 'metadata', 'passwordHash'] as const;

/** What `plat users export` writes that an import cannot set: read and ignored, in CSV and JSON alike. */
export const READ_ONLY_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'status',
  'emailVerified',
  'createdAt',
  'updatedAt',
  'lastLoginAt',
  'avatarUrl',
]);

/** The key no JSON the API reads may hold (it would name an object's prototype). */
const RESERVED_KEY = '__proto__';

/** A row the CLI refuses before sending it. */
export function failedRow(line: number, email: string | null, code: ErrorCode, message: string): Row {
  return { line, email, error: { code, message } };
}

/**
 * Checks a candidate item with the contract's schema (the API would check it the same way) and makes the row. A
 * `passwordHash` string must be one of the forms the platform verifies; the messages never hold a value.
 */
export function checkedRow(line: number, candidate: Record<string, unknown>): Row {
  const email = typeof candidate.email === 'string' ? candidate.email : null;
  if (candidate.email === undefined) return failedRow(line, null, 'validation_error', 'email: missing');
  const hash = candidate.passwordHash;
  const problem = typeof hash === 'string' ? hashProblem(hash) : undefined;
  if (problem) return failedRow(line, email, 'validation_error', `passwordHash: ${problem}`);
  const parsed = userBatchItemSchema.safeParse(candidate);
  if (parsed.success) return { line, email, item: candidate as UserBatchItem };
  const problems = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(row)'}: ${i.message}`);
  return failedRow(line, email, 'validation_error', problems.join('; '));
}

/** The columns of plat's CSV that set the item field of their name. */
const CSV_FIELDS = ['email', 'name', 'role', 'teams', 'passwordHash'] as const;
type CsvField = (typeof CSV_FIELDS)[number];
const isCsvField = (name: string): name is CsvField => (CSV_FIELDS as readonly string[]).includes(name);

/** How a CSV header's columns are read: the field each sets (or null: a read-only column, ignored). */
export type CsvColumns = ({ field: CsvField } | { metadata: string } | null)[];

/**
 * The columns of a CSV header, or why the file cannot be imported: `email` is required; `name`, `role`, `teams`
 * and `metadata.KEY` are read; the export's read-only columns are ignored; anything else, or a column twice, is refused.
 */
export function csvColumns(header: readonly string[]): CsvColumns | string {
  const seen = new Set<string>();
  const columns: CsvColumns = [];
  for (const name of header) {
    if (seen.has(name)) return `the column "${name}" appears twice`;
    seen.add(name);
    if (isCsvField(name)) columns.push({ field: name });
    else if (name.startsWith(METADATA_COLUMN) && name.length > METADATA_COLUMN.length) {
      const key = name.slice(METADATA_COLUMN.length);
      if (key === RESERVED_KEY) return `the column "${name}": "${RESERVED_KEY}" cannot be a metadata key`;
      columns.push({ metadata: key });
    } else if (READ_ONLY_FIELDS.has(name)) columns.push(null);
    else {
      return (
        `unknown column "${name}": expected email, name, role, teams and metadata.KEY columns ` +
        `(the export's ${[...READ_ONLY_FIELDS].join(', ')} are ignored)`
      );
    }
  }
  if (!seen.has('email')) return 'no email column: the header must name one';
  return columns;
}

/**
 * A CSV record as a row. An empty cell is "not given"; text cells are restored from plat's neutralised form, teams
 * split on `;` (unless escaped), metadata cells typed (see cells.ts).
 */
export function csvRow(line: number, columns: CsvColumns, cells: readonly string[]): Row {
  if (cells.length !== columns.length) {
    const email = cells[columns.findIndex((c) => c !== null && 'field' in c && c.field === 'email')] ?? null;
    return failedRow(
      line,
      email || null,
      'invalid_request',
      `${cells.length} ${cells.length === 1 ? 'field' : 'fields'} where the header has ${columns.length}`,
    );
  }
  const item: Record<string, unknown> = {};
  const metadata: Record<string, string | number | boolean> = {};
  columns.forEach((column, i) => {
    const cell = cells[i] as string;
    if (column === null || cell === '') return;
    if ('metadata' in column) metadata[column.metadata] = metadataValue(cell);
    else if (column.field === 'teams') item.teams = teamsOfCell(restoreText(cell));
    else item[column.field] = column.field === 'role' || column.field === 'passwordHash' ? cell : restoreText(cell);
  });
  if (Object.keys(metadata).length > 0) item.metadata = metadata;
  return checkedRow(line, item);
}

/**
 * A JSON value (an element of an array, or one JSON line) as a row: an object with the item's fields, where `null`
 * means "not given" (as the export writes a user without a name) except inside `metadata` (where it deletes a key);
 * the export's read-only fields are ignored, and any other key fails the row.
 */
export function jsonRow(line: number, value: unknown): Row {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return failedRow(line, null, 'validation_error', 'expected an object such as {"email": "ada@example.com"}');
  }
  const item: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if ((ITEM_FIELDS as readonly string[]).includes(key)) {
      if (v !== null) item[key] = v;
    } else if (!READ_ONLY_FIELDS.has(key)) unknown.push(key);
  }
  const email = typeof item.email === 'string' ? item.email : null;
  // The API refuses a request holding this key anywhere, which would fail the whole batch: it fails its row alone.
  const metadata = item.metadata;
  if (metadata !== null && typeof metadata === 'object' && Object.hasOwn(metadata, RESERVED_KEY)) {
    return failedRow(line, email, 'validation_error', `metadata: "${RESERVED_KEY}" cannot be used as a key`);
  }
  if (unknown.length > 0) {
    const keys = unknown.map((k) => JSON.stringify(k)).join(', ');
    return failedRow(line, email, 'validation_error', `unknown ${unknown.length === 1 ? 'key' : 'keys'} ${keys}`);
  }
  if (item.passwordHash !== undefined && typeof item.passwordHash !== 'string') {
    const message = `passwordHash: expected a hash string (${HASH_FORMS}); read Firebase's exports with --from firebase`;
    return failedRow(line, email, 'validation_error', message);
  }
  return checkedRow(line, item);
}

/**
 * Set by a reader when the rest of the input cannot be read as rows (a quote never closed, text after a JSON
 * array's end): the line where, and why. The rows before it are imported; the run then fails (exit 7).
 */
export interface Halt {
  at?: { line: number; message: string };
}

/** How the records of one CSV file become rows, given the cells of a record and the line it starts on. */
export type CsvRecord = (line: number, cells: readonly string[]) => Row;

/**
 * How a file's records become rows — the seam between the readers (import-csv.ts, import-json.ts), which find the
 * records and their lines, and what the records mean: plat's own files ({@link platRecords}) or another system's
 * export (`--from`, providers/).
 */
export interface RecordReader {
  /** A JSON value (an element of an array, or one JSON line) as a row. */
  json(line: number, value: unknown): Row;
  /** How a CSV file with this header is read, or why it cannot be imported (refused before any row: exit 7). */
  csv(header: readonly string[]): CsvRecord | string;
}

/** plat's own files: what `plat users export` writes, and the fields an import may set (docs/cli.md). */
export const platRecords: RecordReader = {
  json: jsonRow,
  csv: (header) => {
    const columns = csvColumns(header);
    return typeof columns === 'string' ? columns : (line, cells) => csvRow(line, columns, cells);
  },
};
