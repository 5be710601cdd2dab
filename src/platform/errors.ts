import type * as z from 'zod';
import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../contract/errors.js';

/** A coded error thrown by operations; the HTTP layer renders it as the error envelope (docs/api.md, "Errors"). */
export class PlatformError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { status?: number; details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'PlatformError';
    this.code = code;
    this.status = opts.status ?? ERROR_STATUS[code];
    this.details = opts.details;
    this.headers = opts.headers;
  }
}

/** `404 not_found` for a resource that does not exist or that the caller may not see. */
export function notFound(what: string): PlatformError {
  return new PlatformError('not_found', `${what} not found`);
}
/** `409 conflict`. */
export function conflict(message: string): PlatformError {
  return new PlatformError('conflict', message);
}
/** `422 validation_error` about one field. */
export function invalidField(field: string, message: string): PlatformError {
  return new PlatformError('validation_error', `${field}: ${message}`, { details: [{ field, message }] });
}
/** `403 insufficient_permissions`. */
export function forbidden(message = 'insufficient permissions'): PlatformError {
  return new PlatformError('insufficient_permissions', message);
}

/** The field-level problems of a failed zod parse, as error details (an unknown key is `unknown field`). */
export function detailsOf(error: z.ZodError): ErrorDetail[] {
  return error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ field: base ? `${base}.${k}` : k, message: 'unknown field' }));
    }
    return [{ field: base || '(body)', message: issue.message }];
  });
}

/** Details as one message: `field: message; …`. */
export function summary(details: ErrorDetail[]): string {
  return details.map((d) => `${d.field}: ${d.message}`).join('; ');
}

/** `422 validation_error` for these field-level problems, every one of them in its message. */
export function invalidFields(details: ErrorDetail[]): PlatformError {
  return new PlatformError('validation_error', summary(details), { details });
}

/** What the error envelope says of an error, without its status and request id: its code, message and details. */
export function errorParts(err: Pick<PlatformError, 'code' | 'message' | 'details'>): {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
} {
  return { code: err.code, message: err.message, ...(err.details && { details: err.details }) };
}
