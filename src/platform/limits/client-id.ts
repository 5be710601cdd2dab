import { bodyText, type Incoming } from '../http/incoming.js';
import { nestsTooDeep } from '../http/json.js';

/**
 * The OAuth client a request to `/auth/token`, `/auth/refresh` or `/auth/revoke` names: HTTP Basic client
 * authentication first (RFC 6749 §2.3.1), else `client_id` (or `/auth/refresh`'s `clientId`) in a form or JSON body.
 * The body is read once and kept: the route reads the same bytes.
 */
export async function clientIdOf(request: Incoming): Promise<string | undefined> {
  const basic = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(request.header('authorization')?.trim() ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return usable(safeDecode(decoded.slice(0, colon)));
  }
  const text = await bodyText(request);
  if (text === '') return undefined;
  const type = request.header('content-type') ?? '';
  if (/^application\/x-www-form-urlencoded/i.test(type)) return usable(new URLSearchParams(text).get('client_id'));
  // Deep nesting is refused by the route; parsing it here would only cost time.
  if (/^application\/json/i.test(type) && !nestsTooDeep(text)) {
    try {
      const body: unknown = JSON.parse(text);
      if (body && typeof body === 'object') {
        const b = body as Record<string, unknown>;
        return usable(b.client_id ?? b.clientId);
      }
    } catch {}
  }
  return undefined;
}

/** Basic credentials are form-encoded before base64 (RFC 6749 §2.3.1); a bad escape is kept as sent. */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** A client id worth a bucket of its own: a non-empty string of sane length (anything else fails the route anyway). */
function usable(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
}
