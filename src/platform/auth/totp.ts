import { TOTP } from '../../contract/mfa.js';

/** otpauth is loaded on first use: only sign-ins with a factor pay for it. */
const otpauth = () => import('otpauth');

/** What authenticator apps show as an account's issuer: plat and the instance's host (no colon: RFC 6238 URIs). */
export function totpIssuer(publicUrl: string): string {
  return `plat (${new URL(publicUrl).hostname})`;
}

/** A new TOTP secret: 20 random bytes (RFC 4226's recommendation for SHA-1), base32 as apps read it. */
export async function newTotpSecret(): Promise<string> {
  const { Secret } = await otpauth();
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/…` URI an authenticator app reads: issuer and account in the label, RFC 6238's defaults. */
export async function otpauthUri(secret: string, issuer: string, account: string): Promise<string> {
  const { Secret, TOTP: Totp } = await otpauth();
  return new Totp({ issuer, label: account, secret: Secret.fromBase32(secret), ...TOTP }).toString();
}

/**
 * The time step a code belongs to when it is right for `secret` at `nowMs` — this step, the one before or the one
 * after (clocks drift) — or null. Compared in constant time by otpauth; whether the step was used is the caller's
 * check (store: `acceptTotpStep`).
 */
export async function totpStep(secret: string, code: string, nowMs: number): Promise<number | null> {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const { Secret, TOTP: Totp } = await otpauth();
  const delta = Totp.validate({ token, secret: Secret.fromBase32(secret), ...TOTP, timestamp: nowMs, window: 1 });
  if (delta === null) return null;
  return Math.floor(nowMs / 1000 / TOTP.period) + delta;
}
