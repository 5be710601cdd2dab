import type { IdpProfile } from '../operations/sso-provision.js';

/**
 * Claims that only bind the ID token to this sign-in (the nonce, hashes of the code and tokens): they say nothing of
 * the person, and a test's page or a mapping has no use for them.
 */
const BINDING_CLAIMS = new Set(['nonce', 'at_hash', 'c_hash', 's_hash']);

/** A claim's values as text: strings as they are, numbers and booleans written out, lists item by item, objects as JSON. */
function values(claim: unknown): string[] {
  if (claim === null || claim === undefined) return [];
  if (Array.isArray(claim))
    return claim.flatMap((item) => (Array.isArray(item) ? [JSON.stringify(item)] : values(item)));
  if (typeof claim === 'string') return [claim];
  if (typeof claim === 'number' || typeof claim === 'boolean') return [String(claim)];
  return [JSON.stringify(claim)];
}

/**
 * What an ID token, checked, says of the person: `sub` is who they are at the provider; every other claim becomes an
 * attribute the organization's mapping can name (`email`, `name`, `groups`…), each as its list of strings.
 */
export function profileFromClaims(claims: { sub: string } & Record<string, unknown>): IdpProfile {
  const attributes: Record<string, string[]> = {};
  for (const [name, claim] of Object.entries(claims)) {
    if (BINDING_CLAIMS.has(name)) continue;
    const list = values(claim);
    if (list.length > 0) attributes[name] = list;
  }
  // OIDC Core §5.1: `email_verified` false means the provider has not checked that the person owns the address.
  const verified = claims.email_verified;
  return { subject: claims.sub, attributes, ...(typeof verified === 'boolean' && { emailVerified: verified }) };
}
