import { stringify } from 'csv-stringify/sync';
import type { User } from '../../contract/users.js';
import { METADATA_COLUMN, metadataCell, neutraliseText, teamsCell } from './cells.js';
import type { Spool } from './export-spool.js';
import type { Target } from './export-target.js';
import type { TeamsByUser } from './export-teams.js';
import type { UsersWriter } from './export-writer.js';

/** The columns before the metadata ones, in order. */
export const USER_COLUMNS = ['id', 'email', 'name', 'role', 'status', 'teams', 'createdAt', 'lastLoginAt'] as const;

/**
 * RFC 4180 records, as `-o csv` writes them: CRLF after each, quotes only where needed — which includes a lone CR
 * or LF, that csv-stringify leaves bare once a record delimiter is given unless `quote_record_delimiter` says so.
 */
const CSV_OPTIONS = { record_delimiter: '\r\n', quote_record_delimiter: true } as const;

type Metadata = User['metadata'];

/**
 * A user's cells before the metadata: every one through {@link neutraliseText}, which the importer reverses; what
 * is missing (a null name, no sign-in yet, no team) is an empty cell, which the importer reads as "not given".
 */
export function userCells(user: User, teams: readonly string[]): string[] {
  return [
    user.id,
    user.email,
    user.name ?? '',
    user.role,
    user.status,
    teamsCell(teams),
    user.createdAt,
    user.lastLoginAt ?? '',
  ].map(neutraliseText);
}

/** The metadata cells of a user, one per key of the header: a value through {@link metadataCell}, else empty. */
export function metadataCells(metadata: Metadata, keys: readonly string[]): string[] {
  return keys.map((k) => (Object.hasOwn(metadata, k) ? metadataCell(metadata[k] as Metadata[string]) : ''));
}

/**
 * Users as CSV. The header needs every metadata key before the first row, and the users may be too many to hold:
 * each page goes to the spool (one JSON line per user, their cells and metadata) while the keys are gathered; at
 * the end come the header, then the rows read back from the spool, a batch at a time, through csv-stringify.
 */
export function csvWriter(target: Target, teams: TeamsByUser, spool: Spool, opts: { bom: boolean }): UsersWriter {
  const keys = new Set<string>();
  let emptyValues = 0;
  return {
    page: async (users) => {
      let lines = '';
      for (const user of users) {
        for (const [k, v] of Object.entries(user.metadata)) {
          keys.add(k);
          if (v === '') emptyValues++;
        }
        lines += `${JSON.stringify([...userCells(user, teams.of(user)), user.metadata])}\n`;
      }
      spool.append(lines);
    },
    end: async () => {
      const sorted = [...keys].sort();
      const header = [...USER_COLUMNS, ...sorted.map((k) => `${METADATA_COLUMN}${k}`)];
      await target.write(stringify([header], { ...CSV_OPTIONS, bom: opts.bom }));
      for (const lines of spool.batches()) {
        const rows = lines.map((line) => {
          const cells = JSON.parse(line) as [...string[], Metadata];
          const metadata = cells.pop() as Metadata;
          return [...(cells as string[]), ...metadataCells(metadata, sorted)];
        });
        await target.write(stringify(rows, CSV_OPTIONS));
      }
      return emptyValues === 0
        ? []
        : [
            `${emptyValues} metadata ${emptyValues === 1 ? 'value is' : 'values are'} empty text, which a CSV cell ` +
              'cannot tell from no value: the CSV leaves them out (--format jsonl keeps them)',
          ];
    },
    close: () => spool.close(),
  };
}
