import { type ErrorDetail, type FailureKind, failureKindOfStatus } from '../contract/errors.js';

/** An error response of the API, rebuilt from its envelope (or from the status when the body is not one). */
export class ApiError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The envelope's `error.code` (`not_found`, `validation_error`…), or one derived from the status. */
  readonly code: string;
  /** The request id the server answered with (envelope or `X-Request-Id`), when there was one. */
  readonly requestId: string | null;
  /** Field-level problems of a `422` (or a bad query parameter of a `400`). */
  readonly details: ErrorDetail[] | undefined;
  /** How many times the request was retried before this answer (429 waits, connection retries). */
  readonly retries: number;
  /** The API's error object as received (`error` of the envelope, or the OAuth body), for `--json` output. */
  readonly body: unknown;
  /** The failure's kind, from the status (404 → `not_found`…). */
  readonly kind: FailureKind;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId: string | null;
    details?: ErrorDetail[];
    retries: number;
    body: unknown;
  }) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details;
    this.retries = init.retries;
    this.body = init.body;
    this.kind = failureKindOfStatus(init.status);
  }
}

/** The server could not be reached or did not answer in time: refused, reset, DNS, TLS, timeout. */
export class NetworkError extends Error {
  readonly kind: FailureKind = 'network';
  /** How many times the request was retried before giving up. */
  readonly retries: number;
  /** The most specific system or undici error code found in the cause chain (`ECONNREFUSED`…), if any. */
  readonly errno: string | undefined;

  constructor(message: string, opts: { cause: unknown; retries: number; errno?: string }) {
    super(message, { cause: opts.cause });
    this.name = 'NetworkError';
    this.retries = opts.retries;
    this.errno = opts.errno;
  }
}
