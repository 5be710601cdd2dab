import type { Configuration } from 'openid-client';
import type { RequestInfo } from '../client/client.js';
import { stopwatch } from '../client/client.js';
import { AuthError, type AuthErrorKind } from './errors.js';

/** The one seam to the network: the CLI's transport (undici, or a test's in-process platform). */
export type Fetch = (request: Request) => Promise<Response>;

/** The public client every instance registers for the CLI (docs/api.md, "Conventions"). */
export const CLI_CLIENT_ID = 'plat-cli';

/** What `--verbose` shows about one exchange with the authorization server: the API's own line, never a secret. */
export type ExchangeInfo = Omit<RequestInfo, 'rateLimit'>;

/** How sign-in requests travel. */
export interface OAuthTransport {
  fetch: Fetch;
  /** `--verbose`: called after every attempt. */
  onRequest?: (info: ExchangeInfo) => void;
  /** Retries after a `429` (default 3), each after `Retry-After` (capped at a minute). */
  maxRetries?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** openid-client, imported on demand so that commands that never sign in or refresh do not load it (nor jose). */
export type Oidc = typeof import('openid-client');

/** A discovered authorization server, with the openid-client module that drives it. */
export interface Discovered {
  oidc: Oidc;
  config: Configuration;
  issuer: string;
}

/** `{base_url}/auth`: the issuer of an instance whose API lives at `baseUrl` (…/v2). */
export function issuerOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/auth`;
}

const MAX_RETRY_AFTER_MS = 60_000;
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function retryAfterMs(value: string | null): number {
  const seconds = Number(value?.trim());
  return Math.min(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000, MAX_RETRY_AFTER_MS);
}

/** The first wait after a refused connection, doubled at each try, and the longest. */
const CONNECT_BACKOFF_MS = 250;
const CONNECT_BACKOFF_MAX_MS = 2_000;

/** Whether a request failed because nothing listens at the address (yet): `ECONNREFUSED` along the cause chain. */
function refused(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}

/**
 * openid-client's `customFetch` over the CLI's transport: the same undici agent (timeouts, no redirects) as API
 * calls, a `--verbose` line per attempt, `429` honoured (a refused request was not processed, so it is resent), and a
 * refused connection tried again.
 */
export function customFetch(t: OAuthTransport) {
  const sleep = t.sleep ?? defaultSleep;
  const maxRetries = t.maxRetries ?? 3;
  return async (
    url: string,
    options: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal },
  ): Promise<Response> => {
    const shown = url.split('?')[0] as string;
    for (let attempt = 1; ; attempt++) {
      const ms = stopwatch();
      let res: Response;
      try {
        const init = { method: options.method, headers: options.headers, body: options.body as RequestInit['body'] };
        res = await t.fetch(new Request(url, { ...init, redirect: 'manual', signal: options.signal }));
      } catch (err) {
        t.onRequest?.({ method: options.method, url: shown, status: null, ms: ms(), requestId: null, attempt });
        // Refused: nothing was sent, so any request may go again — to a server still starting (`plat serve &`, then
        // `plat login` at once), after a short backoff.
        if (!refused(err) || attempt > maxRetries) throw err;
        await sleep(Math.min(CONNECT_BACKOFF_MAX_MS, CONNECT_BACKOFF_MS * 2 ** (attempt - 1)));
        continue;
      }
      const requestId = res.headers.get('x-request-id');
      t.onRequest?.({ method: options.method, url: shown, status: res.status, ms: ms(), requestId, attempt });
      if (res.status !== 429 || attempt > maxRetries) return res;
      await res.arrayBuffer().catch(() => undefined);
      await sleep(retryAfterMs(res.headers.get('retry-after')));
    }
  };
}

/** Discovers the authorization server at `issuer` (`{issuer}/.well-known/openid-configuration`) for the CLI's client. */
export async function discover(issuer: string, t: OAuthTransport, clientId = CLI_CLIENT_ID): Promise<Discovered> {
  const oidc = await import('openid-client');
  const url = new URL(issuer);
  try {
    const config = await oidc.discovery(url, clientId, undefined, oidc.None(), {
      algorithm: 'oidc',
      // A plain-HTTP issuer is one the user configured (`plat serve` on a laptop); HTTPS is not forced on it.
      execute: url.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
      [oidc.customFetch]: customFetch(t),
    });
    return { oidc, config, issuer: config.serverMetadata().issuer };
  } catch (err) {
    throw oauthFailure(oidc, err, `discovery at ${issuer}`);
  }
}

const ERROR_KINDS: Record<string, AuthErrorKind> = {
  invalid_grant: 'unauthenticated',
  invalid_client: 'unauthenticated',
  unauthorized_client: 'unauthenticated',
  access_denied: 'unauthenticated',
  expired_token: 'unauthenticated',
  invalid_scope: 'invalid',
  invalid_request: 'invalid',
  rate_limit_exceeded: 'rate_limited',
};

/** The first error code on an error's `cause` chain (fetch wraps ECONNREFUSED in a TypeError). */
function causeCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('OAUTH_')) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Turns whatever openid-client or the transport threw into an `AuthError` that says what failed and why, in words
 * taken from the server's error code and description — never from a request or a token.
 */
export function oauthFailure(oidc: Oidc, err: unknown, what: string): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError) {
    const status = err instanceof oidc.ResponseBodyError ? err.status : undefined;
    const kind = status === 429 ? 'rate_limited' : (ERROR_KINDS[err.error] ?? 'unexpected');
    const description = err.error_description ? `: ${err.error_description}` : '';
    return new AuthError(kind, `${what} refused (${err.error}${description})`, { cause: err });
  }
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return new AuthError('network', `${what} timed out`, { cause: err });
  }
  const code = causeCode(err);
  if (err instanceof TypeError && (code || err.message === 'fetch failed')) {
    const reason = code ?? ((err.cause as Error | undefined)?.message || err.message);
    return new AuthError('network', `${what} failed: the server could not be reached (${reason})`, { cause: err });
  }
  if (err instanceof oidc.ClientError) {
    const hint = err.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' ? ' (is this a plat server?)' : '';
    return new AuthError('unexpected', `${what} failed: ${err.message}${hint}`, { cause: err });
  }
  const reason = err instanceof Error ? err.message : String(err);
  return new AuthError('unexpected', `${what} failed: ${reason}`, { cause: err });
}
