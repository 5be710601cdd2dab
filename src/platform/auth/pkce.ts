import { createHash } from 'node:crypto';

/** RFC 7636 §4.1: 43–128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge: base64url of a SHA-256 digest, 43 characters without padding. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** Whether `verifier` has the form RFC 7636 requires. */
export function isCodeVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** Whether `challenge` can be an S256 challenge. */
export function isS256Challenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** `BASE64URL(SHA256(verifier))`: the challenge a verifier answers. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
