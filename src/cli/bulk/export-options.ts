import { type Command, Option } from 'commander';
import { USER_STATUSES, type UserStatus } from '../../contract/users.js';
import { completes } from '../completion-values.js';
import { UsageError } from '../errors.js';
import { OUTPUT_MODES } from '../output/render.js';
import { oneOf } from '../parse.js';
import { formatOption, isUserFileFormat, USER_FILE_FORMATS, type UserFileFormat } from './formats.js';

/** What `plat users export` writes. */
export type ExportFormat = UserFileFormat;

/** `plat users export`'s options. */
export interface ExportOptions {
  /** Undefined: JSON with the global `--json`, else CSV. */
  format?: ExportFormat;
  status?: UserStatus;
  /** The file to write; undefined (or `-`) for stdout. */
  output?: string;
  bom: boolean;
}

/** Adds `--format --status --output --bom`. */
export function addExportOptions(c: Command): void {
  const format = new Option('--format <format>', 'csv (the default; it imports back), json or jsonl (JSON lines)');
  c.addOption(completes(format, USER_FILE_FORMATS));
  c.addOption(
    completes(new Option('--status <status>', `only users in this state: ${USER_STATUSES.join(', ')}`), USER_STATUSES),
  );
  c.option('-o, --output <file>', 'write to this file (mode 0600; complete, or not at all) instead of stdout');
  c.option('--bom', 'begin the CSV with a UTF-8 byte order mark (for Excel)');
}

/**
 * Reads them. `--output` (or `-o`, the same option) names a file here: an output mode given out of habit
 * (`-o json`) is refused rather than taken for a file name, and `--format` says what it meant.
 */
export function parseExportOptions(raw: Record<string, unknown>): ExportOptions {
  const format = formatOption(raw.format);
  const output = raw.output as string | undefined;
  if (output !== undefined && (OUTPUT_MODES as readonly string[]).includes(output)) {
    const as = isUserFileFormat(output) ? `--format ${output}` : '--format';
    throw new UsageError(
      `users export: --output (-o) names the file to write, not an output mode; choose the format with ${as}` +
        ` (or write --output ./${output} for a file of that name)`,
    );
  }
  return {
    format,
    status: raw.status === undefined ? undefined : oneOf(String(raw.status), USER_STATUSES, '--status'),
    output: output === '-' ? undefined : output,
    bom: raw.bom === true,
  };
}

/** The format to write: `--format`, else JSON with the global `--json`, else CSV. */
export function formatOf(o: ExportOptions, json: boolean): ExportFormat {
  const format = o.format ?? (json ? 'json' : 'csv');
  if (o.bom && format !== 'csv') throw new UsageError(`--bom is for CSV only, not ${format}`);
  return format;
}
