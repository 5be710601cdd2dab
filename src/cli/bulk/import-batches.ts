import { createHash, type Hash } from 'node:crypto';
import type { UserBatchItem } from '../../contract/users.js';
import { failedRow, type Row } from './import-rows.js';

/** The API's limit on a request body (docs/api.md, "Bounds on what clients send"): a batch is split to stay within it. */
export const REQUEST_BODY_LIMIT = 1024 * 1024;
/** Room left for the body's envelope (`{"users":[…],"mode":"upsert","invite":false,"dryRun":false}`), generously. */
const ENVELOPE_BYTES = 1024;

/** A run of consecutive rows of the file, sent in one request (or none, when every row of it failed here). */
export interface Batch {
  /** Its place among the file's batches, from 0: the same file read with the same options gives the same batches. */
  seq: number;
  firstLine: number;
  lastLine: number;
  /** Every row, in file order: those to send and those that failed here. */
  rows: Row[];
  /** What is sent: the items of the rows that have one, in order. */
  items: UserBatchItem[];
  /** For each item, its row: `rows[itemRows[i]]` is the row of `items[i]` (and of the result with index `i`). */
  itemRows: number[];
  /** A digest of its rows (lines, items, failures): what a checkpoint compares on `--resume`. */
  hash: string;
}

/** A batch being filled. */
interface Open {
  rows: Row[];
  items: UserBatchItem[];
  itemRows: number[];
  bytes: number;
  hash: Hash;
}

const open = (): Open => ({ rows: [], items: [], itemRows: [], bytes: 0, hash: createHash('sha256') });

/**
 * Cuts rows into batches of at most `size` rows whose items fit in one request body. Deterministic: batch
 * boundaries depend only on the rows and `size`. A row whose item alone is over the body limit fails here.
 */
export async function* toBatches(rows: AsyncIterable<Row> | Iterable<Row>, size: number): AsyncGenerator<Batch> {
  const budget = REQUEST_BODY_LIMIT - ENVELOPE_BYTES;
  let seq = 0;
  let current = open();
  const close = (): Batch => {
    const c = current;
    current = open();
    const [first, last] = [c.rows[0] as Row, c.rows.at(-1) as Row];
    const batch = {
      seq,
      firstLine: first.line,
      lastLine: last.line,
      rows: c.rows,
      items: c.items,
      itemRows: c.itemRows,
    };
    seq++;
    return { ...batch, hash: c.hash.digest('hex') };
  };
  for await (let row of rows) {
    // What the digest takes in: the row's line and its item as sent, or its failure.
    let text = JSON.stringify('item' in row ? row.item : row.error);
    if ('item' in row) {
      const bytes = Buffer.byteLength(text) + 1; // and its comma
      if (bytes > budget) {
        const message = `too large to send: ${bytes - 1} bytes, where a request holds at most ${REQUEST_BODY_LIMIT}`;
        const failed = failedRow(row.line, row.email, 'invalid_request', message);
        text = JSON.stringify('error' in failed && failed.error);
        row = failed;
      } else {
        if (current.bytes + bytes > budget) yield close();
        current.itemRows.push(current.rows.length);
        current.items.push(row.item);
        current.bytes += bytes;
      }
    }
    current.rows.push(row);
    current.hash.update(`${row.line} ${row.email} ${text}\n`);
    if (current.rows.length >= size) yield close();
  }
  if (current.rows.length > 0) yield close();
}
