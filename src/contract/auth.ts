import { z } from 'zod';
import { apiKeySchema } from './api-keys.js';
import { nullableTimestampSchema } from './common.js';
import { organizationSchema } from './organizations.js';
import { userSchema } from './users.js';

/** `GET /auth/whoami`: who the credential acts as, where, and with which scopes. */
export const whoamiSchema = z
  .object({
    type: z.enum(['user', 'api_key']),
    user: userSchema,
    apiKey: apiKeySchema.nullable(),
    organization: organizationSchema,
    scopes: z.array(z.string()),
    sessionId: z.string().nullable(),
    expiresAt: nullableTimestampSchema,
  })
  .meta({ id: 'Whoami' });
export type Whoami = z.infer<typeof whoamiSchema>;
