import * as z from 'zod';
import { lazySchema, nameSchema, nullableTimestampSchema, timestampSchema } from './common.js';

/**
 * A second factor (docs/mfa.md): a TOTP authenticator app (RFC 6238), a WebAuthn passkey or security key, or the set of
 * recovery codes an account gets with its first factor.
 */
export const MFA_FACTOR_TYPES = ['totp', 'webauthn', 'recovery_codes'] as const;
export type MfaFactorType = (typeof MFA_FACTOR_TYPES)[number];

/** An organization's policy: `required` walks a member without a factor through enrolment at sign-in. */
export const MFA_POLICIES = ['optional', 'required'] as const;
export type MfaPolicy = (typeof MFA_POLICIES)[number];
export const mfaPolicySchema = z.enum(MFA_POLICIES);

/**
 * How a session was signed in (RFC 8176 `amr`): `pwd` a password, `otp` a one-time code (TOTP or a recovery code),
 * `hwk` a key held in hardware (a passkey), `swk` one held in software (a synced passkey), `user` the person was
 * verified by the authenticator (PIN, biometrics), `mfa` more than one factor, `sso` the organization's identity
 * provider (not in RFC 8176's registry: what vouched for the person is the identity provider's to say).
 */
export const AMR_VALUES = ['pwd', 'otp', 'hwk', 'swk', 'user', 'mfa', 'sso'] as const;
export type Amr = (typeof AMR_VALUES)[number];

/** TOTP as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
export const TOTP = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** How many recovery codes a set has. */
export const RECOVERY_CODE_COUNT = 10;
/** Failed codes allowed per user in `MFA_FAILURE_WINDOW_MS`; the next waits until the window has passed. */
export const MFA_FAILURES_ALLOWED = 5;
export const MFA_FAILURE_WINDOW_MS = 15 * 60_000;

export const mfaFactorSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    type: z.enum(MFA_FACTOR_TYPES),
    name: z.string(),
    createdAt: timestampSchema,
    lastUsedAt: nullableTimestampSchema,
    remaining: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Recovery codes only: how many of the codes are still unused.' }),
  }),
).meta({ id: 'MfaFactor' });
export type MfaFactor = z.infer<typeof mfaFactorSchema>;

export const totpEnrollSchema = lazySchema(() =>
  z.strictObject({
    name: nameSchema.optional().meta({ description: 'What to call it; default "Authenticator app".' }),
  }),
).meta({ id: 'TotpEnroll' });
export type TotpEnroll = z.infer<typeof totpEnrollSchema>;

export const totpEnrollmentSchema = lazySchema(() =>
  z.object({
    factorId: z.string(),
    secret: z.string().meta({ description: 'The shared secret, base32: shown this once.' }),
    otpauthUri: z
      .string()
      .meta({ description: 'The `otpauth://totp/…` URI an authenticator app reads (as a QR code).' }),
  }),
).meta({ id: 'TotpEnrollment' });
export type TotpEnrollment = z.infer<typeof totpEnrollmentSchema>;

export const totpVerifySchema = lazySchema(() =>
  z.strictObject({ code: z.string().regex(/^\s*\d{3}\s?\d{3}\s*$/, 'must be the 6 digits the app shows') }),
).meta({ id: 'TotpVerify' });
export type TotpVerify = z.infer<typeof totpVerifySchema>;

export const totpVerifiedSchema = lazySchema(() =>
  z.object({
    factor: mfaFactorSchema,
    recoveryCodes: z
      .array(z.string())
      .nullable()
      .meta({ description: "With the account's first factor: the recovery codes, shown this once; otherwise null." }),
  }),
).meta({ id: 'TotpVerified' });
export type TotpVerified = z.infer<typeof totpVerifiedSchema>;

export const recoveryCodesSchema = lazySchema(() =>
  z.object({
    recoveryCodes: z
      .array(z.string())
      .meta({ description: 'The new recovery codes, shown this once; the earlier ones no longer work.' }),
  }),
).meta({ id: 'RecoveryCodes' });
export type RecoveryCodes = z.infer<typeof recoveryCodesSchema>;
