import * as z from 'zod';
import {
  metadataPatchSchema,
  metadataSchema,
  nameSchema,
  nullableTimestampSchema,
  orderSchema,
  pagingQueryShape,
  searchParam,
  timestampSchema,
} from './common.js';
import { orgRoleSchema } from './permissions.js';

export const USER_STATUSES = ['active', 'suspended', 'pending'] as const;
export const userStatusSchema = z.enum(USER_STATUSES);
export type UserStatus = z.infer<typeof userStatusSchema>;

/** A user as seen inside one organization: the account plus its membership (role, status, profile). */
export const userSchema = z
  .lazy(() =>
    z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      avatarUrl: z.string().nullable(),
      status: userStatusSchema,
      emailVerified: z.boolean(),
      role: orgRoleSchema,
      createdAt: timestampSchema,
      updatedAt: timestampSchema,
      lastLoginAt: nullableTimestampSchema,
      metadata: metadataSchema,
    }),
  )
  .meta({ id: 'User' });
export type User = z.infer<typeof userSchema>;

export const USER_SORTS = ['created_at', 'name', 'email', 'last_login_at'] as const;
export const userSortSchema = z.enum(USER_SORTS);
export type UserSort = z.infer<typeof userSortSchema>;

export const userListQuerySchema = z.lazy(() =>
  z.strictObject({
    ...pagingQueryShape,
    status: userStatusSchema.optional(),
    search: searchParam.optional(),
    sort: userSortSchema.optional(),
    order: orderSchema.optional(),
  }),
);
export type UserListQuery = z.infer<typeof userListQuerySchema>;

export const userPatchSchema = z
  .lazy(() =>
    z.strictObject({
      name: nameSchema.optional(),
      avatarUrl: z
        .url({ protocol: /^https?$/ })
        .max(2048)
        .nullable()
        .optional(),
      role: orgRoleSchema.optional(),
      metadata: metadataPatchSchema.optional(),
    }),
  )
  .meta({ id: 'UserPatch' });
export type UserPatch = z.infer<typeof userPatchSchema>;

export const emailSchema = z.email().max(254);

export const INVITATION_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export const invitationStatusSchema = z.enum(INVITATION_STATUSES);

/** What `POST /organizations/{orgId}/users` returns (the seed calls it "the service"). */
export const invitationSchema = z
  .lazy(() =>
    z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      role: orgRoleSchema,
      teams: z.array(z.string()),
      status: invitationStatusSchema,
      userId: z.string(),
      organizationId: z.string(),
      createdAt: timestampSchema,
      expiresAt: timestampSchema,
    }),
  )
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof invitationSchema>;

export const invitationCreateSchema = z
  .lazy(() =>
    z.strictObject({
      email: emailSchema,
      name: nameSchema.optional(),
      role: orgRoleSchema.optional(),
      teams: z.array(z.string().max(100)).max(50).optional(),
    }),
  )
  .meta({ id: 'InvitationCreate' });
export type InvitationCreate = z.infer<typeof invitationCreateSchema>;

export const invitationListQuerySchema = z.lazy(() =>
  z.strictObject({
    ...pagingQueryShape,
    status: invitationStatusSchema.optional(),
  }),
);
export type InvitationListQuery = z.infer<typeof invitationListQuerySchema>;
