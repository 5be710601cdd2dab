import * as z from 'zod';
import { nameSchema, pagingQueryShape, timestampSchema } from './common.js';

export const teamSchema = z
  .lazy(() => z.object({ id: z.string(), organizationId: z.string(), name: z.string(), createdAt: timestampSchema }))
  .meta({ id: 'Team' });
export type Team = z.infer<typeof teamSchema>;

export const teamCreateSchema = z.lazy(() => z.strictObject({ name: nameSchema })).meta({ id: 'TeamCreate' });
export type TeamCreate = z.infer<typeof teamCreateSchema>;

/** The short form of a user nested in other records (members, team members). */
export const userRefSchema = z
  .lazy(() =>
    z.object({ id: z.string(), name: z.string().nullable(), email: z.string(), avatarUrl: z.string().nullable() }),
  )
  .meta({ id: 'UserRef' });
export type UserRef = z.infer<typeof userRefSchema>;

export const teamMemberSchema = z
  .lazy(() => z.object({ user: userRefSchema, createdAt: timestampSchema }))
  .meta({ id: 'TeamMember' });
export type TeamMember = z.infer<typeof teamMemberSchema>;

export const teamListQuerySchema = z.lazy(() => z.strictObject({ ...pagingQueryShape }));

export const teamMemberAddSchema = z
  .lazy(() => z.strictObject({ userId: z.string().max(100) }))
  .meta({ id: 'TeamMemberAdd' });
export type TeamMemberAdd = z.infer<typeof teamMemberAddSchema>;
