import type { ErrorDetail } from '../contract/errors.js';
import { ApiError } from './errors.js';

/** The code a status stands for when the body is not the API's envelope (a proxy's HTML page, an empty body). */
export function codeForStatus(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_failed';
    case 403:
      return 'insufficient_permissions';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 422:
      return 'validation_error';
    case 429:
      return 'rate_limit_exceeded';
    default:
      return status >= 500 ? 'internal_error' : 'invalid_request';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Rebuilds the API's error from a non-2xx answer. The API's envelope (docs/api.md, "Errors") is taken as is; the OAuth
 * form (`{error, error_description}`) keeps its code; anything else gets a code from the status and a message that
 * does not repeat the body, since a stranger's page may echo what was sent.
 */
export function apiErrorFrom(status: number, headers: Headers, text: string, retries: number): ApiError {
  const headerId = headers.get('x-request-id');
  const json = parseJson(text);
  const e = isObject(json) ? json.error : undefined;
  // Checked loosely on purpose: a newer server may send a code this client does not know yet.
  if (isObject(e) && typeof e.code === 'string' && typeof e.message === 'string') {
    return new ApiError({
      status,
      code: e.code,
      message: e.message,
      requestId: typeof e.requestId === 'string' && e.requestId ? e.requestId : headerId,
      details: Array.isArray(e.details) ? (e.details as ErrorDetail[]) : undefined,
      retries,
      body: e,
    });
  }
  if (isObject(json) && typeof e === 'string') {
    const description = json.error_description;
    return new ApiError({
      status,
      code: e,
      message: typeof description === 'string' ? description : e,
      requestId: headerId,
      retries,
      body: json,
    });
  }
  const code = codeForStatus(status);
  const location = status >= 300 && status < 400 ? headers.get('location') : null;
  const message = location
    ? `the server redirects to ${location}; use that address as the base URL`
    : `the server answered HTTP ${status} without an API error body`;
  return new ApiError({
    status,
    code,
    message,
    requestId: headerId,
    retries,
    body: { code, message, status, requestId: headerId },
  });
}
