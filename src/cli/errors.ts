import type { FailureKind } from '../contract/errors.js';

/**
 * Every way a command can fail, and the exit code each one gives (docs/cli-reference.md, "Exit codes"), in one table. Every
 * error a command may meet carries its kind (`kind`: the CLI's own, the client's, sign-in's, configuration's), which
 * is all this reads — no error class is imported, so that `--help` and `--version` never load the client.
 */

/** A kind of failure; each maps to exactly one exit code. */
export type ErrorKind = FailureKind;

/** The contract's exit codes. */
export const EXIT_CODES: Record<ErrorKind, number> = {
  unexpected: 1,
  usage: 2,
  unauthenticated: 3,
  forbidden: 4,
  not_found: 5,
  conflict: 6,
  invalid: 7,
  rate_limited: 8,
  network: 9,
  /** Ctrl-C during long work that stops cleanly (an import), as shells report a SIGINT: 128 + 2. */
  interrupted: 130,
};

/** The code a CLI-side failure carries in `--json` error output (API errors keep the API's code). */
const CLI_CODES: Record<ErrorKind, string> = {
  unexpected: 'internal_error',
  usage: 'usage_error',
  unauthenticated: 'authentication_failed',
  forbidden: 'insufficient_permissions',
  not_found: 'not_found',
  conflict: 'conflict',
  invalid: 'validation_error',
  rate_limited: 'rate_limit_exceeded',
  network: 'network_error',
  interrupted: 'interrupted',
};

/** A failure the CLI raises itself, with the kind that decides its exit code. */
export class CliError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Bad invocation (exit 2). One class for every layer: it lives in config/ (the lowest layer that raises it, and one
 * the CLI may import while config/ may not import the CLI), re-exported here for the commands.
 */
export { UsageError } from '../config/errors.js';

/** A value the CLI rejects before sending, because the API would reject it too (exit 7). */
export class InvalidValueError extends CliError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'InvalidValueError';
  }
}

/** No credentials to act with (exit 3). */
export class NotAuthenticatedError extends CliError {
  constructor(message: string) {
    super('unauthenticated', message);
    this.name = 'NotAuthenticatedError';
  }
}

/** Something the CLI looked up does not exist (exit 5), e.g. a project slug. */
export class NotFoundError extends CliError {
  constructor(message: string) {
    super('not_found', message);
    this.name = 'NotFoundError';
  }
}

/** What `run` reports for a failure: exit code, the `plat: …` line, and the JSON error object for `--json`. */
export interface Failure {
  exitCode: number;
  message: string;
  json: { error: Record<string, unknown> };
}

interface ApiErrorShape {
  kind: ErrorKind;
  message: string;
  status: number;
  code: string;
  requestId: string | null;
  details?: { field: string; message: string }[];
  retries: number;
  body: unknown;
}

/** The kind an error says it is, when it says one the table knows. */
function kindOf(err: unknown): ErrorKind | undefined {
  const kind = (err as { kind?: unknown } | null)?.kind;
  return err instanceof Error && typeof kind === 'string' && Object.hasOwn(EXIT_CODES, kind)
    ? (kind as ErrorKind)
    : undefined;
}

/** An answer of the API (the client's ApiError): a kind, and the HTTP status it came from. */
function isApiError(err: unknown): err is ApiErrorShape {
  return kindOf(err) !== undefined && typeof (err as { status?: unknown }).status === 'number';
}

function apiFailure(err: ApiErrorShape): Failure {
  const lines = [err.message];
  for (const d of err.details ?? []) {
    const line = `${d.field}: ${d.message}`;
    if (!err.message.includes(line)) lines.push(`  ${line}`);
  }
  if (err.kind === 'rate_limited') lines[0] += ` (still rate limited after ${err.retries} ${plural(err.retries)})`;
  if (err.requestId) lines[0] += ` [request ${err.requestId}]`;
  // The client keeps the envelope's `error` object (or the OAuth form's whole body) as `body`.
  const body = err.body as Record<string, unknown> | null;
  const json =
    body && typeof body === 'object' && typeof body.code === 'string'
      ? { error: body }
      : { error: { code: err.code, message: err.message, status: err.status, requestId: err.requestId } };
  return { exitCode: EXIT_CODES[err.kind], message: lines.join('\n'), json };
}

const plural = (n: number) => (n === 1 ? 'retry' : 'retries');

/** Classifies anything thrown by a command into an exit code and messages. Never includes a stack trace. */
export function toFailure(err: unknown): Failure {
  if (isApiError(err)) return apiFailure(err);
  // Anything that says no kind (a bug, a library's error) is unexpected: exit 1.
  const kind = kindOf(err) ?? 'unexpected';
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: EXIT_CODES[kind], message, json: { error: { code: CLI_CODES[kind], message, status: null } } };
}
