import type { OAuthClient } from './settings.js';

/** `http://<loopback IP literal>:<port><rest>`: the only URIs whose port may differ from the registration. */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\]):(\d{1,5})(\/.*)?$/;

/**
 * Whether `uri` is one of the client's redirect URIs: the very same string, or — for a loopback IP literal
 * registered without a port — the same string with any port added (RFC 8252 §7.3). Host, path and query never vary.
 */
export function isRegisteredRedirect(client: OAuthClient, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  const m = LOOPBACK.exec(uri);
  if (!m) return false;
  const port = Number(m[2]);
  if (port < 1 || port > 65535 || m[2]?.startsWith('0')) return false;
  const withoutPort = `http://${m[1]}${m[3] ?? ''}`;
  return client.redirectUris.includes(withoutPort);
}
