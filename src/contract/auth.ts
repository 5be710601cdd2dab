import * as z from 'zod';
import { apiKeySchema } from './api-keys.js';
import { lazySchema, nullableTimestampSchema } from './common.js';
import { AMR_VALUES } from './mfa.js';
import { organizationSchema } from './organizations.js';
import { userSchema } from './users.js';

/** `GET /auth/whoami`: who the credential acts as, where, and with which scopes. */
export const whoamiSchema = lazySchema(() =>
  z.object({
    type: z.enum(['user', 'api_key']),
    user: userSchema,
    apiKey: apiKeySchema.nullable(),
    organization: organizationSchema,
    scopes: z.array(z.string()),
    sessionId: z.string().nullable(),
    amr: z
      .array(z.enum(AMR_VALUES))
      .nullable()
      .meta({ description: "How the token's session was signed in (RFC 8176, docs/mfa.md); null for an API key." }),
    expiresAt: nullableTimestampSchema,
  }),
).meta({ id: 'Whoami' });
export type Whoami = z.infer<typeof whoamiSchema>;

/** `POST /auth/refresh`: the JSON form of the refresh-token grant. */
export const refreshRequestSchema = lazySchema(() =>
  z.strictObject({ refreshToken: z.string().min(1).max(512), clientId: z.string().min(1).max(100) }),
).meta({ id: 'RefreshRequest' });
export type RefreshRequest = z.infer<typeof refreshRequestSchema>;

/** What `POST /auth/refresh` answers: a new access token and the rotated refresh token. */
export const refreshResponseSchema = lazySchema(() =>
  z.object({
    accessToken: z.string(),
    refreshToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int(),
    scope: z.string(),
  }),
).meta({ id: 'RefreshResponse' });
export type RefreshResponse = z.infer<typeof refreshResponseSchema>;
