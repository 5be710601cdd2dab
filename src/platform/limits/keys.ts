import type { Credential } from '../context.js';

/**
 * The bucket of a credential acting in an organization: an API key's own, or for a user's token the user within the
 * organization (several tokens of one sign-in, or of several, share it). A multi-organization credential has one in
 * each organization it acts in, each on that organization's plan.
 */
export function credentialKey(c: Credential, orgId: string): string {
  return c.type === 'api_key' && c.keyId ? `key:${c.keyId}@${orgId}` : `user:${c.userId}@${orgId}`;
}

/** The address's bucket for failed authentication (bad keys and tokens, failed sign-ins, refused SSO answers). */
export function addressKey(ip: string): string {
  return `ip:${ip}`;
}
