import type { Fetch } from './client.js';

/** Defaults for a remote instance: fail fast when nothing answers, but give a slow server room to finish. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** How long an idle keep-alive socket is kept for the next call of the same command. */
const KEEP_ALIVE_MS = 10_000;

/**
 * A remote instance over HTTP(S) through undici: one keep-alive agent, a connect timeout, and header/body timeouts.
 * undici is imported here, dynamically, so that embedded commands never load it.
 */
export async function remoteTransport(
  opts: { connectTimeoutMs?: number; requestTimeoutMs?: number } = {},
): Promise<{ fetch: Fetch; close(): Promise<void> }> {
  const undici = await import('undici');
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const agent = new undici.Agent({
    keepAliveTimeout: KEEP_ALIVE_MS,
    connect: { timeout: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS },
    headersTimeout: requestTimeout,
    bodyTimeout: requestTimeout,
  });
  const fetch: Fetch = async (request) => {
    // undici's fetch does not accept the global Request (another copy of the class), so the request is re-made.
    const body = request.body ? await request.arrayBuffer() : undefined;
    const response = await undici.fetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
      dispatcher: agent,
      // A stream (`plat events tail --follow`) is ended by its caller: the signal goes along.
      signal: request.signal,
      // Credentials travel in X-API-Key, which a redirect would carry to wherever it points: never follow one.
      redirect: 'manual',
    });
    return response as unknown as Response;
  };
  return { fetch, close: () => agent.close() };
}
