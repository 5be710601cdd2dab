import * as z from 'zod';
import { lazySchema, nameSchema, timestampSchema } from './common.js';

/**
 * A bearer token of an organization's SCIM endpoints (docs/scim.md): what an identity provider (Okta, Microsoft Entra
 * ID) provisions with. It works on its organization's SCIM endpoints only; the secret is shown once, at creation.
 */
export const scimTokenSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    createdAt: timestampSchema,
    lastUsedAt: timestampSchema.nullable(),
  }),
).meta({ id: 'ScimToken' });
export type ScimToken = z.infer<typeof scimTokenSchema>;

/** A token just made: its secret `token` (`scim_…`) is in this answer only. */
export const createdScimTokenSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    token: z.string().meta({ description: 'The secret (`scim_…`): shown this once, stored only as a hash.' }),
    createdAt: timestampSchema,
    lastUsedAt: timestampSchema.nullable(),
  }),
).meta({ id: 'CreatedScimToken' });
export type CreatedScimToken = z.infer<typeof createdScimTokenSchema>;

export const scimTokenCreateSchema = lazySchema(() => z.strictObject({ name: nameSchema })).meta({
  id: 'ScimTokenCreate',
});
export type ScimTokenCreate = z.infer<typeof scimTokenCreateSchema>;

/** How many SCIM tokens an organization may hold at once (one per identity provider, and a spare while rotating). */
export const SCIM_TOKENS_PER_ORGANIZATION = 10;

/** SCIM's error (RFC 7644 §3.12): the status as a string, `scimType` for the 400s and 409s that have one. */
export const scimErrorSchema = lazySchema(() =>
  z.object({
    schemas: z.array(z.string()),
    status: z.string(),
    scimType: z.string().optional(),
    detail: z.string().optional(),
  }),
).meta({ id: 'ScimError' });

/** Where an organization's directory sync stands (`plat scim status`). */
export const scimStatusSchema = lazySchema(() =>
  z.object({
    organizationId: z.string(),
    baseUrl: z
      .string()
      .meta({ description: "The SCIM base URL to enter at the identity provider (under the instance's public URL)" }),
    tokens: z.number().int(),
    requests: z.number().int().meta({ description: 'SCIM requests made with the tokens that exist now' }),
    failures: z.number().int(),
    lastRequestAt: timestampSchema.nullable(),
    lastFailure: z
      .object({
        at: timestampSchema,
        method: z.string(),
        path: z.string(),
        status: z.number().int(),
        scimType: z.string().nullable(),
        detail: z.string(),
      })
      .nullable(),
    users: z.number().int().meta({ description: 'Members provisioned or updated through SCIM' }),
    groups: z.number().int().meta({ description: 'Teams provisioned or updated through SCIM' }),
  }),
).meta({ id: 'ScimStatus' });
export type ScimStatus = z.infer<typeof scimStatusSchema>;
