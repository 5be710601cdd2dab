import * as z from 'zod';
import { lazySchema } from './common.js';

/** The API's error codes and the HTTP status each one normally carries (docs/api.md, "Errors"). */
export const ERROR_STATUS = {
  invalid_request: 400,
  authentication_failed: 401,
  insufficient_permissions: 403,
  not_found: 404,
  conflict: 409,
  validation_error: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
} as const;

/** One of the API's error codes (docs/api.md, "Errors"). */
export type ErrorCode = keyof typeof ERROR_STATUS;

export const errorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

/** One field-level problem of a `422 validation_error` (or a bad query parameter of a `400`). */
export const errorDetailSchema = lazySchema(() => z.object({ field: z.string(), message: z.string() })).meta({
  id: 'ErrorDetail',
});
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

/** The error envelope every non-OAuth error response carries. */
export const errorBodySchema = lazySchema(() =>
  z.object({
    error: z.object({
      code: errorCodeSchema,
      message: z.string(),
      status: z.number().int(),
      requestId: z.string(),
      details: z.array(errorDetailSchema).optional(),
    }),
  }),
).meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * How a failure is classed, whichever layer raised it: each error the CLI may meet carries one as `kind` (the API's
 * answers by their status), and the CLI maps it to an exit code in one table (src/cli/errors.ts).
 */
export type FailureKind =
  | 'unexpected'
  | 'usage'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'invalid'
  | 'rate_limited'
  | 'network'
  | 'interrupted';

/** The kind of an API answer of this status (an error status). */
export function failureKindOfStatus(status: number): FailureKind {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'invalid';
  return 'unexpected';
}
