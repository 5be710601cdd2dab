import * as z from 'zod';
import { lazySchema, nameSchema, nullableTimestampSchema, pagingQueryShape, timestampSchema } from './common.js';
import { permissionSchema } from './permissions.js';

export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export const keyEnvironmentSchema = z.enum(KEY_ENVIRONMENTS);
export type KeyEnvironment = z.infer<typeof keyEnvironmentSchema>;

/** An API key record. The secret itself is shown once, in the create response, never again. */
export const apiKeySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    organizationId: z.string(),
    userId: z.string(),
    environment: keyEnvironmentSchema,
    prefix: z.string(),
    last4: z.string(),
    projectIds: z.array(z.string()).nullable(),
    permissions: z.array(permissionSchema).nullable(),
    multiOrganization: z.boolean(),
    createdAt: timestampSchema,
    expiresAt: nullableTimestampSchema,
    lastUsedAt: nullableTimestampSchema.describe(
      'When the key last authenticated a request: written at most once a minute, and not while another process holds ' +
        'the write lock of a database file (or the file is read-only), so it may be older.',
    ),
    revokedAt: nullableTimestampSchema,
  }),
).meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof apiKeySchema>;

export const createdApiKeySchema = lazySchema(() => apiKeySchema.unwrap().extend({ key: z.string() })).meta({
  id: 'CreatedApiKey',
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const apiKeyCreateSchema = lazySchema(() =>
  z.strictObject({
    name: nameSchema,
    environment: keyEnvironmentSchema,
    projectIds: z.array(z.string().max(100)).min(1).max(100).optional(),
    permissions: z.array(permissionSchema).min(1).optional(),
    expiresAt: timestampSchema.pipe(z.iso.datetime({ offset: true })).optional(),
    multiOrganization: z.boolean().optional(),
  }),
).meta({ id: 'ApiKeyCreate' });
export type ApiKeyCreate = z.infer<typeof apiKeyCreateSchema>;

export const apiKeyListQuerySchema = lazySchema(() => z.strictObject({ ...pagingQueryShape }));
