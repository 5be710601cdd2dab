import * as z from 'zod';
import { lazySchema, nullableTimestampSchema, timestampSchema } from './common.js';
import { AMR_VALUES } from './mfa.js';

/** How a session was signed in: a password, a device approval, or single sign-on through SAML or OIDC. */
export const SIGN_IN_METHODS = ['password', 'device', 'saml', 'oidc'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

export const sessionSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    userId: z.string(),
    method: z.enum(SIGN_IN_METHODS),
    amr: z.array(z.enum(AMR_VALUES)).meta({
      description: 'How it was signed in (RFC 8176): `pwd`, `otp`, `hwk`, `swk`, `user`, `mfa`, `sso` (docs/mfa.md).',
    }),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: timestampSchema,
    lastActive: timestampSchema.describe(
      'When the session last made a request: written at most once a minute, and not while another process holds ' +
        'the write lock of a database file (or the file is read-only), so it may be older.',
    ),
    expiresAt: nullableTimestampSchema,
    current: z.boolean(),
  }),
).meta({ id: 'Session' });
export type Session = z.infer<typeof sessionSchema>;

export const revokeAllQuerySchema = lazySchema(() =>
  z.strictObject({ keepCurrent: z.enum(['true', 'false']).optional() }),
);
export const revokeAllResultSchema = lazySchema(() => z.object({ revoked: z.number().int() })).meta({
  id: 'RevokeAllResult',
});
