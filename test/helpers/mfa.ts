import { Secret, TOTP } from 'otpauth';
import type { Platform } from '../../src/platform/index.js';
import { baseOf } from './internals.js';

/** The code an authenticator app shows for `secret` at `at` (ms), computed by otpauth as an app would. */
export function totpCode(secret: string, at: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at });
}

/**
 * Gives a user a confirmed authenticator-app factor straight through the store, as enrolment would leave it (for
 * fixtures; the enrolment itself is tested through the API and the pages). Returns the factor and its secret.
 */
export async function givenTotpFactor(
  platform: Platform,
  userId: string,
): Promise<{ factorId: string; secret: string }> {
  const base = baseOf(platform);
  const factorId = base.ids('mfaFactor');
  const secret = new Secret({ size: 20 }).base32;
  await base.stores.mfa.insertTotp({ id: factorId, accountId: userId, name: 'Phone', secret, now: base.now() });
  await base.stores.mfa.acceptTotpStep(factorId, 0, base.now());
  return { factorId, secret };
}
