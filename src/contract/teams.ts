import * as z from 'zod';
import { lazySchema, nameSchema, pagingQueryShape, timestampSchema } from './common.js';

export const teamSchema = lazySchema(() =>
  z.object({ id: z.string(), organizationId: z.string(), name: z.string(), createdAt: timestampSchema }),
).meta({ id: 'Team' });
export type Team = z.infer<typeof teamSchema>;

export const teamCreateSchema = lazySchema(() => z.strictObject({ name: nameSchema })).meta({ id: 'TeamCreate' });
export type TeamCreate = z.infer<typeof teamCreateSchema>;

/** The short form of a user nested in other records (members, team members). */
export const userRefSchema = lazySchema(() =>
  z.object({ id: z.string(), name: z.string().nullable(), email: z.string(), avatarUrl: z.string().nullable() }),
).meta({ id: 'UserRef' });
export type UserRef = z.infer<typeof userRefSchema>;

export const teamMemberSchema = lazySchema(() => z.object({ user: userRefSchema, createdAt: timestampSchema })).meta({
  id: 'TeamMember',
});
export type TeamMember = z.infer<typeof teamMemberSchema>;

export const teamListQuerySchema = lazySchema(() => z.strictObject({ ...pagingQueryShape }));

export const teamMemberAddSchema = lazySchema(() => z.strictObject({ userId: z.string().max(100) })).meta({
  id: 'TeamMemberAdd',
});
export type TeamMemberAdd = z.infer<typeof teamMemberAddSchema>;
