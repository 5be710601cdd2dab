import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Fetch } from './client.js';

/** The base URL the embedded platform is addressed by; no socket ever listens on it. */
export const EMBEDDED_BASE_URL = 'http://embedded.plat/v2';

/** Defaults for a remote instance: fail fast when nothing answers, but give a slow server room to finish. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** How long an idle keep-alive socket is kept for the next call of the same command. */
const KEEP_ALIVE_MS = 10_000;

/**
 * The embedded platform in-process: `fetch` calls the platform's handler directly. The platform (and SQLite)
 * is imported here, dynamically, so that remote commands never load it. `lightFetch` first installs the light
 * in-process `Request`/`Response` classes for the whole process (see light-fetch.ts).
 */
export async function embeddedTransport(opts: {
  db: string;
  mode?: 'live' | 'sandbox';
  lightFetch?: boolean;
  /** `PLAT_SECRET_KEY`: the key the database's secrets are sealed with (default: the key file beside it). */
  secretKey?: string;
}): Promise<{ fetch: Fetch; baseUrl: string; close(): void }> {
  if (opts.lightFetch) (await import('./light-fetch.js')).installLightFetch();
  if (opts.db !== ':memory:') mkdirSync(dirname(opts.db), { recursive: true, mode: 0o700 });
  const { createPlatform } = await import('../platform/index.js');
  const platform = createPlatform({ db: opts.db, mode: opts.mode, secretKey: opts.secretKey });
  return {
    fetch: (request) => platform.fetch(request),
    baseUrl: EMBEDDED_BASE_URL,
    close: () => platform.close(),
  };
}

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
      // Credentials travel in X-API-Key, which a redirect would carry to wherever it points: never follow one.
      redirect: 'manual',
    });
    return response as unknown as Response;
  };
  return { fetch, close: () => agent.close() };
}
