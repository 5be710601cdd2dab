import { type Command, Option } from 'commander';
import { MAX_BATCH_USERS } from '../../contract/users.js';
import { completes } from '../completion-values.js';
import { intBetween } from '../parse.js';
import { formatOption, USER_FILE_FORMATS, type UserFileFormat } from './formats.js';
import { addFromOptions, type FromOptions, parseFromOptions } from './import-from-options.js';

/** What `plat users import` reads. */
export type ImportFormat = UserFileFormat;

/** `plat users import`'s options. */
export interface ImportOptions extends FromOptions {
  /** The file to read; `-` for stdin. */
  file: string;
  /** Undefined: by the file's extension (see `formatOf`). */
  format?: ImportFormat;
  upsert: boolean;
  invite: boolean;
  dryRun: boolean;
  batchSize: number;
  concurrency: number;
  resume: boolean;
  /** The errors file; undefined: `FILE.errors.jsonl`. */
  errors?: string;
  /** Create the teams rows name that the organization does not have. */
  createTeams: boolean;
}

/**
 * Adds `--format --upsert --invite --create-teams --dry-run --batch-size --concurrency --resume --errors`, and those of
 * another system's export (`--from`…, import-from-options.ts).
 */
export function addImportOptions(c: Command): void {
  const format = new Option(
    '--format <format>',
    'csv, json (an array) or jsonl (default: by extension, .json or .jsonl, else csv; CSV split on the comma, tab or ' +
      'semicolon its header uses; UTF-8 or UTF-16, as Excel\'s "Unicode text")',
  );
  c.addOption(completes(format, USER_FILE_FORMATS));
  c.option('--upsert', 'update users that exist (name, role, teams, metadata) instead of failing those that differ');
  c.option('--invite', 'send the users created their invitation e-mail');
  c.option(
    '--create-teams',
    'create the teams rows name that do not exist (once each; needs teams:write; with --dry-run, lists them and ' +
      'creates none)',
  );
  c.option('--dry-run', 'report what would happen, changing nothing');
  c.option('--batch-size <n>', `rows per request, 1 to ${MAX_BATCH_USERS}`, intBetween(1, MAX_BATCH_USERS), 1000);
  c.option('--concurrency <n>', 'requests in flight at once, 1 to 16', intBetween(1, 16), 2);
  c.option(
    '--resume',
    'skip the batches that the checkpoint of an interrupted import says were done (kept beside the errors file: ' +
      'needs one, so with - it needs --errors)',
  );
  c.option(
    '--errors <file>',
    'where failed rows go, as JSON lines (default FILE.errors.jsonl; with - as the input, or --errors -, they go to ' +
      'stderr as "line N EMAIL: reason" and there is no checkpoint)',
  );
  addFromOptions(c);
}

/** Reads them; a format that is none of csv, json, jsonl is a usage error (2), as for export. */
export function parseImportOptions(file: string, raw: Record<string, any>): ImportOptions {
  return {
    ...parseFromOptions(raw, file),
    file,
    format: formatOption(raw.format),
    upsert: raw.upsert === true,
    invite: raw.invite === true,
    dryRun: raw.dryRun === true,
    batchSize: raw.batchSize,
    concurrency: raw.concurrency,
    resume: raw.resume === true,
    errors: raw.errors,
    createTeams: raw.createTeams === true,
  };
}
