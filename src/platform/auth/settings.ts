import { API_BASE } from '../../contract/endpoint.js';
/** A public OAuth client (no secret): PKCE protects its codes. */
export interface OAuthClient {
  id: string;
  /** Shown on the login page ("Sign in to continue to …"). */
  name: string;
  /**
   * Registered redirect URIs, matched exactly — except that a loopback IP literal (`http://127.0.0.1/…`,
   * `http://[::1]/…`) registered without a port accepts any port (RFC 8252 §7.3).
   */
  redirectUris: readonly string[];
}

/** Sign-in settings a platform is created with (all optional). */
export interface AuthOptions {
  /** Access-token lifetime in seconds (default 3600). */
  accessTokenTtl?: number;
  /** Session (and so refresh-token) lifetime in seconds from sign-in (default 30 days). */
  sessionTtl?: number;
  /** The device grant's polling interval in seconds (default 5, RFC 8628 §3.2). */
  devicePollInterval?: number;
  /** Public clients besides the built-in `plat-cli`. */
  clients?: readonly OAuthClient[];
}

/** Resolved sign-in settings, on every context as `ctx.auth`. */
export interface AuthSettings {
  accessTokenTtl: number;
  sessionTtl: number;
  devicePollInterval: number;
  /** How long a device code waits for the user, in seconds. */
  deviceCodeTtl: number;
  clients: ReadonlyMap<string, OAuthClient>;
}

/** The client every instance has: the CLI, signing in through a loopback redirect on any port. */
export const PLAT_CLI: OAuthClient = {
  id: 'plat-cli',
  name: 'plat CLI',
  redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback'],
};

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer (seconds)`);
  return value;
}

/** Fills in the defaults of `opts`. */
export function resolveAuthSettings(opts: AuthOptions = {}): AuthSettings {
  const clients = new Map<string, OAuthClient>([[PLAT_CLI.id, PLAT_CLI]]);
  for (const c of opts.clients ?? []) clients.set(c.id, c);
  return {
    accessTokenTtl: positive('accessTokenTtl', opts.accessTokenTtl, 3600),
    sessionTtl: positive('sessionTtl', opts.sessionTtl, 30 * 24 * 3600),
    devicePollInterval: positive('devicePollInterval', opts.devicePollInterval, 5),
    deviceCodeTtl: 600,
    clients,
  };
}

/** `{auth_url}`: the issuer, `{publicUrl}/v2/auth`. */
export function authUrl(ctx: { publicUrl: string }): string {
  return `${ctx.publicUrl}${API_BASE}/auth`;
}

/** The `aud` of access tokens: the API they are for, `{publicUrl}/v2`. */
export function apiAudience(ctx: { publicUrl: string }): string {
  return `${ctx.publicUrl}${API_BASE}`;
}
