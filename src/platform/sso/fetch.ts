import { isIP } from 'node:net';
import { readLimited, StreamTooLarge } from '../read-limited.js';

/** How long an identity provider has to answer, and the most the platform reads of what it sends (docs/sso.md). */
export const FETCH_TIMEOUT_MS = 5_000;
export const FETCH_MAX_BYTES = 1024 * 1024;

/** Why a document could not be fetched: said to the owner who saved the configuration (`422` naming the field). */
export class FetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchError';
  }
}

/** Whether a host name is this machine: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * An address the platform may fetch an identity provider's document from: `https`, or `http` to this machine only
 * (an IdP a developer runs beside plat); never credentials in the URL.
 */
export function checkFetchable(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('is not a URL');
  }
  if (url.username || url.password) throw new FetchError('must not carry a user name or password');
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url;
  throw new FetchError('must be https (plain http only to this machine: localhost, 127.0.0.1, ::1)');
}

/**
 * Fetches an identity provider's document (SAML metadata, OIDC discovery) with the bounds of docs/sso.md: at most
 * 5 s, at most 1 MiB read (refused as soon as it is passed), no redirect followed, `200` only. Throws `FetchError`
 * saying what went wrong in words an owner can act on.
 */
export async function fetchDocument(raw: string, accept: string): Promise<string> {
  const response = await sendBounded(checkFetchable(raw), { headers: { Accept: accept } });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const to = response.headers.get('location');
    throw new FetchError(`answered with a redirect${to ? ` to ${to}` : ''}: give the address it leads to`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new FetchError(`answered ${response.status}`);
  }
  return readBounded(response);
}

/**
 * Sends one request to an identity provider with the bounds of docs/sso.md: the caller's signal (if any) and 5 s,
 * which also bound reading the body (`readBounded`); no redirect followed. Throws `FetchError` when no answer came.
 */
export async function sendBounded(url: URL, init: RequestInit): Promise<Response> {
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  try {
    return await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    });
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new FetchError(`did not answer within ${FETCH_TIMEOUT_MS / 1000} s`);
    }
    const code = (err as { cause?: { code?: string } }).cause?.code;
    throw new FetchError(`could not be reached${code ? ` (${code})` : ''}`);
  }
}

/** The body of an answer of `sendBounded`, refused (`FetchError`) as soon as it passes 1 MiB or stalls. */
export async function readBounded(response: Response): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > FETCH_MAX_BYTES) {
    await response.body?.cancel();
    throw new FetchError('sent more than 1 MiB');
  }
  if (!response.body) return '';
  try {
    return new TextDecoder().decode(await readLimited(response.body, FETCH_MAX_BYTES));
  } catch (err) {
    if (err instanceof StreamTooLarge) throw new FetchError('sent more than 1 MiB');
    const name = (err as Error).name;
    throw new FetchError(
      name === 'TimeoutError' || name === 'AbortError'
        ? `did not answer within ${FETCH_TIMEOUT_MS / 1000} s`
        : 'broke off while sending',
    );
  }
}
