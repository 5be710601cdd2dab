import * as z from 'zod';
import { lazySchema, nameSchema, timestampSchema } from './common.js';
import { PLANS, type Plan } from './limits.js';
import { mfaPolicySchema } from './mfa.js';

export { PLANS, type Plan };
export const planSchema = z.enum(PLANS);

export const organizationSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    plan: planSchema,
    mfa: mfaPolicySchema.meta({
      description:
        '`required`: members sign in with a second factor, enrolling one first if they have none (docs/mfa.md).',
    }),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
).meta({ id: 'Organization' });
export type Organization = z.infer<typeof organizationSchema>;

export const organizationCreateSchema = lazySchema(() => z.strictObject({ name: nameSchema })).meta({
  id: 'OrganizationCreate',
});
export type OrganizationCreate = z.infer<typeof organizationCreateSchema>;

export const organizationPatchSchema = lazySchema(() =>
  z.strictObject({ name: nameSchema.optional(), plan: planSchema.optional(), mfa: mfaPolicySchema.optional() }),
).meta({ id: 'OrganizationPatch' });
export type OrganizationPatch = z.infer<typeof organizationPatchSchema>;
