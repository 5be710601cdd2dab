import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import type { InStream } from '../output/io.js';
import { csvRows } from './import-csv.js';
import { toUtf8 } from './import-decode.js';
import { jsonArrayRows, jsonLinesRows } from './import-json.js';
import { providerRows } from './import-layout.js';
import type { ImportFormat } from './import-options.js';
import type { Halt, Row } from './import-rows.js';
import type { FirebaseParameters, Provider } from './providers/provider.js';

/** The format: `--format`, else the extension (`.json`; `.jsonl` or `.ndjson`), else CSV (stdin included). */
export function formatOf(file: string, given: ImportFormat | undefined): ImportFormat {
  if (given) return given;
  const ext = /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase();
  if (ext === 'json') return 'json';
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  return 'csv';
}

/** The rows of an input, and how far it has been read (for progress: bytes of a file, of its `size`). */
export interface Source {
  rows: AsyncGenerator<Row>;
  halt: Halt;
  read(): number;
  size: number | undefined;
  /** Stops reading: the rows end (a row being read is given up). */
  close(): void;
}

/** What an input is read as: a file of plat's own in a format, or another system's export (`--from`). */
export type Reading = { format: ImportFormat } | { provider: Provider; firebase: FirebaseParameters };

/**
 * Opens `file` (`-`: stdin; `name`: as the user gave it, for messages) as rows — of a `format`, or of a provider's
 * export whose layout its content tells (import-layout.ts) — read as UTF-8 whatever its encoding (import-decode.ts). A
 * file that cannot be read is a usage error (exit 2), found here; the input itself is opened when the first row is
 * asked for, and closed when the rows end or are given up.
 */
export async function openSource(file: string, name: string, reading: Reading, stdin: () => InStream): Promise<Source> {
  let size: number | undefined;
  if (file !== '-') {
    const info = await stat(file).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${name}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
    });
    if (!info.isFile()) throw new UsageError(`cannot read ${name}: not a file`);
    size = info.size;
  }
  let raw: (Readable & { bytesRead?: number }) | undefined;
  let input: Readable | undefined;
  const halt: Halt = {};
  const label = file === '-' ? 'stdin' : name;
  const open = () => {
    // Chunks of 16 KiB: a chunk's rows are all parsed at once, and fewer of them alive at a time means less memory.
    raw = file === '-' ? stdin() : createReadStream(file, { highWaterMark: 16 * 1024 });
    input = toUtf8(raw, label);
    return input;
  };
  let rows: AsyncGenerator<Row>;
  if ('provider' in reading) rows = providerRows(open, halt, reading.provider, reading.firebase, label);
  else if (reading.format === 'csv') rows = csvRows(open, halt);
  else rows = reading.format === 'json' ? jsonArrayRows(open, halt) : jsonLinesRows(open, halt);
  return { rows, halt, read: () => raw?.bytesRead ?? 0, size, close: () => input?.destroy() };
}
