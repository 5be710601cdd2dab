import { UsageError } from '../errors.js';

/** The formats users travel in, both ways (`plat users import`, `plat users export`). */
export const USER_FILE_FORMATS = ['csv', 'json', 'jsonl'] as const;
export type UserFileFormat = (typeof USER_FILE_FORMATS)[number];

/** Whether a value is one of the formats. */
export function isUserFileFormat(value: unknown): value is UserFileFormat {
  return (USER_FILE_FORMATS as readonly unknown[]).includes(value);
}

/**
 * A `--format` value: undefined when not given; a usage error (2) when it is none of the formats — the command
 * line's own business, not a value the API would refuse.
 */
export function formatOption(value: unknown): UserFileFormat | undefined {
  if (value === undefined || isUserFileFormat(value)) return value;
  throw new UsageError(`invalid format "${String(value)}": expected one of ${USER_FILE_FORMATS.join(', ')}`);
}
