/** Methods that can be sent again after a connection failure without risking the work being done twice. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** The longest single wait for a `429`, whatever `Retry-After` says: a CLI should not sleep for an hour. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** Jitter added to a `429` wait, so that parallel scripts do not all come back in the same millisecond. */
export const RATE_LIMIT_JITTER_MS = 250;
/** First and largest backoff after a connection failure. */
export const BACKOFF_BASE_MS = 200;
export const BACKOFF_MAX_MS = 5_000;

/**
 * Codes (system errors and undici's) worth another try: the server was not reached, went away, or was slow.
 * DNS failures other than EAI_AGAIN and TLS failures are left out: retrying them only delays the same answer.
 */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** The first error code found along an error's `cause` chain (fetch wraps the system error in a TypeError). */
export function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether a failure to get an answer is likely to pass if the request is sent again. */
export function isTransient(code: string | undefined): boolean {
  return code !== undefined && TRANSIENT_CODES.has(code);
}

/** How long to wait before retrying a `429`: `Retry-After` (seconds or an HTTP date), capped, plus jitter. */
export function rateLimitDelay(retryAfter: string | null, random: () => number, now = Date.now()): number {
  let ms = 1_000;
  const value = retryAfter?.trim() ?? '';
  if (/^\d+$/.test(value)) ms = Number(value) * 1_000;
  else if (value) {
    const at = Date.parse(value);
    if (!Number.isNaN(at)) ms = Math.max(0, at - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS) + Math.floor(random() * RATE_LIMIT_JITTER_MS);
}

/** Exponential backoff with "equal jitter" before the `retry`-th (0-based) resend after a connection failure. */
export function backoffDelay(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.floor(ceiling / 2 + (random() * ceiling) / 2);
}
