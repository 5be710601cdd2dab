import * as z from 'zod';
import {
  lazySchema,
  metadataPatchSchema,
  metadataSchema,
  nameSchema,
  nullableTimestampSchema,
  orderSchema,
  pagingQueryShape,
  searchParam,
  timestampSchema,
} from './common.js';
import { errorCodeSchema, errorDetailSchema } from './errors.js';
import { orgRoleSchema } from './permissions.js';

export const USER_STATUSES = ['active', 'suspended', 'pending'] as const;
export const userStatusSchema = z.enum(USER_STATUSES);
export type UserStatus = z.infer<typeof userStatusSchema>;

/** The fields of a user record (see `userSchema`). */
const userShape = () => ({
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
});

/** A user as seen inside one organization: the account plus its membership (role, status, profile). */
export const userSchema = lazySchema(() => z.object(userShape())).meta({ id: 'User' });
export type User = z.infer<typeof userSchema>;

/**
 * What the users list may add to each record (`expand`, as Stripe's API names it): `teams`, the ids of the user's
 * teams, A to Z by name — every user's teams in the pages that list them, instead of a read of every team's members.
 */
export const USER_EXPANSIONS = ['teams'] as const;
export const userExpansionSchema = z.enum(USER_EXPANSIONS);

/** A user as the users list gives it: the record, plus `teams` when `expand=teams` asked for them. */
export const listedUserSchema = lazySchema(() =>
  z.object({
    ...userShape(),
    teams: z
      .array(z.string())
      .optional()
      .describe('With `expand=teams` only: the ids of the teams the user is in, A to Z by team name.'),
  }),
).meta({ id: 'ListedUser' });
export type ListedUser = z.infer<typeof listedUserSchema>;

export const USER_SORTS = ['created_at', 'name', 'email', 'last_login_at'] as const;
export const userSortSchema = z.enum(USER_SORTS);
export type UserSort = z.infer<typeof userSortSchema>;

export const userListQuerySchema = lazySchema(() =>
  z.strictObject({
    ...pagingQueryShape,
    status: userStatusSchema.optional(),
    search: searchParam.optional(),
    sort: userSortSchema.optional(),
    order: orderSchema.optional(),
    expand: userExpansionSchema.optional(),
  }),
);
export type UserListQuery = z.infer<typeof userListQuerySchema>;

export const userPatchSchema = lazySchema(() =>
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
).meta({ id: 'UserPatch' });
export type UserPatch = z.infer<typeof userPatchSchema>;

export const emailSchema = z.email().max(254);

export const INVITATION_STATUSES = ['pending', 'accepted', 'expired', 'revoked'] as const;
export const invitationStatusSchema = z.enum(INVITATION_STATUSES);

/** What `POST /organizations/{orgId}/users` returns: an invitation. */
export const invitationSchema = lazySchema(() =>
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
).meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof invitationSchema>;

export const invitationCreateSchema = lazySchema(() =>
  z.strictObject({
    email: emailSchema,
    name: nameSchema.optional(),
    role: orgRoleSchema.optional(),
    teams: z.array(z.string().max(100)).max(50).optional(),
  }),
).meta({ id: 'InvitationCreate' });
export type InvitationCreate = z.infer<typeof invitationCreateSchema>;

export const invitationListQuerySchema = lazySchema(() =>
  z.strictObject({
    ...pagingQueryShape,
    status: invitationStatusSchema.optional(),
  }),
);
export type InvitationListQuery = z.infer<typeof invitationListQuerySchema>;

/** The most items of one `POST …/users/batch` (docs/api.md, "Decisions"). */
export const MAX_BATCH_USERS = 1000;

/**
 * An e-mail as a batch item may name it: an account that exists matches whatever the form it was created with (the
 * embedded owner `admin@localhost` included); a new one must also be a valid address (checked when it is created).
 */
export const batchEmailSchema = z
  .string()
  .trim()
  .min(3)
  .max(254)
  // Spaces around are trimmed before the check; the pattern allows them so that JSON Schema, which sees the value
  // untrimmed, refuses no more than the server does.
  .regex(/^\s*[^\s@]+@[^\s@]+\s*$/, 'must be an e-mail address');

/** The longest password hash string a batch item may carry (the longest scheme's, with room to spare). */
export const MAX_HASH_CHARS = 1024;

/** A Firebase Authentication scrypt hash, as `firebase auth:export` writes it (base64 `passwordHash`, `salt`). */
export const firebaseHashSchema = z.strictObject({
  algorithm: z.literal('firebase-scrypt'),
  hash: z.string().min(1).max(MAX_HASH_CHARS),
  salt: z.string().max(MAX_HASH_CHARS),
});

/** A password hash a batch item may carry (docs/api.md, "Imported passwords"; docs/migrate.md). */
export const importedHashSchema = z.union([z.string().min(1).max(MAX_HASH_CHARS), firebaseHashSchema]);
export type ImportedHash = z.infer<typeof importedHashSchema>;

/**
 * The parameters of a Firebase project's scrypt (`firebase auth:export`'s hash config), base64 as Firebase shows them.
 */
export const hashConfigSchema = z
  .strictObject({
    algorithm: z.literal('firebase-scrypt'),
    signerKey: z.string().min(1).max(MAX_HASH_CHARS),
    saltSeparator: z.string().max(MAX_HASH_CHARS),
    rounds: z.number().int().min(1).max(8),
    memCost: z.number().int().min(1).max(14),
  })
  .meta({ id: 'HashConfig' });
export type HashConfig = z.infer<typeof hashConfigSchema>;

/** One person of a batch: who (`email`) and what they should be in the organization. */
export const userBatchItemSchema = lazySchema(() =>
  z.strictObject({
    email: batchEmailSchema,
    name: nameSchema.optional(),
    role: orgRoleSchema.optional(),
    /** Team ids or names of the organization; in `upsert`, the user's teams become exactly these. */
    teams: z.array(z.string().trim().min(1).max(100)).max(50).optional(),
    /** Merged into the user's metadata as PATCH does: `null` deletes a key. */
    metadata: metadataPatchSchema.optional(),
    /**
     * The password the user had elsewhere, as that system stored it (docs/migrate.md): a self-describing hash string,
     * or Firebase's scrypt `{ algorithm, hash, salt }` read with the batch's `hashConfig`. Never returned.
     */
    passwordHash: importedHashSchema.optional(),
    /** Whether the e-mail address is known to be the user's (a new account only). */
    emailVerified: z.boolean().optional(),
    /** `suspended`: the user comes in suspended (blocked or disabled where they came from). */
    status: z.literal('suspended').optional(),
  }),
).meta({ id: 'UserBatchItem' });
export type UserBatchItem = z.infer<typeof userBatchItemSchema>;

export const BATCH_MODES = ['create', 'upsert'] as const;

/**
 * The body as the route parses it: items are any values, each then checked on its own (one bad item fails alone).
 * The reference shows {@link userBatchSchema}.
 */
export const userBatchInputSchema = lazySchema(() =>
  z.strictObject({
    users: z.array(z.unknown()).min(1).max(MAX_BATCH_USERS),
    mode: z.enum(BATCH_MODES).optional(),
    invite: z.boolean().optional(),
    dryRun: z.boolean().optional(),
    hashConfig: hashConfigSchema.optional(),
    replacePasswords: z.boolean().optional(),
  }),
);

/** `POST /organizations/{orgId}/users/batch` as documented (docs/api.md, "Decisions"). */
export const userBatchSchema = lazySchema(() =>
  z.strictObject({
    users: z.array(userBatchItemSchema).min(1).max(MAX_BATCH_USERS),
    mode: z.enum(BATCH_MODES).default('create').optional(),
    invite: z.boolean().default(false).optional(),
    dryRun: z.boolean().default(false).optional(),
    /** How the items' `firebase-scrypt` hashes were made: the project's parameters. */
    hashConfig: hashConfigSchema.optional(),
    /** In `upsert`: set given hashes on users that already have a password too. */
    replacePasswords: z.boolean().default(false).optional(),
  }),
).meta({ id: 'UserBatch' });
export type UserBatch = z.infer<typeof userBatchInputSchema>;

export const BATCH_OUTCOMES = ['created', 'updated', 'unchanged', 'failed'] as const;
export type BatchOutcome = (typeof BATCH_OUTCOMES)[number];

/** What became of one item: its index in `users`, and the user (null when it failed, or is only a dry run's). */
export const userBatchResultSchema = lazySchema(() =>
  z.object({
    index: z.number().int(),
    email: z.string(),
    outcome: z.enum(BATCH_OUTCOMES),
    userId: z.string().nullable(),
    /** Why it failed: the error envelope's code, message and details. */
    error: z
      .object({ code: errorCodeSchema, message: z.string(), details: z.array(errorDetailSchema).optional() })
      .nullable(),
  }),
).meta({ id: 'UserBatchResult' });
export type UserBatchResult = z.infer<typeof userBatchResultSchema>;

export const userBatchReplySchema = lazySchema(() =>
  z.object({
    results: z.array(userBatchResultSchema),
    summary: z.object({
      created: z.number().int(),
      updated: z.number().int(),
      unchanged: z.number().int(),
      failed: z.number().int(),
    }),
  }),
).meta({ id: 'UserBatchReply' });
export type UserBatchReply = z.infer<typeof userBatchReplySchema>;
