import { createHash } from 'node:crypto';
import { CODE_VERIFIER, S256_CHALLENGE } from '../../contract/oauth.js';

/** Whether `verifier` has the form RFC 7636 requires. */
export function isCodeVerifier(verifier: string): boolean {
  return CODE_VERIFIER.test(verifier);
}

/** Whether `challenge` can be an S256 challenge. */
export function isS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

/** `BASE64URL(SHA256(verifier))`: the challenge a verifier answers. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
