import * as z from 'zod';
import { lazySchema, nameSchema, pagingQueryShape, searchParam, timestampSchema } from './common.js';
import { projectRoleSchema } from './permissions.js';
import { userRefSchema } from './teams.js';

export const PROJECT_STATUSES = ['active', 'archived', 'suspended'] as const;
export const projectStatusSchema = z.enum(PROJECT_STATUSES);
export type ProjectStatus = z.infer<typeof projectStatusSchema>;

/** An environment name: a lower-case slug of at most 32 characters. */
export const environmentNameSchema = z
  .string()
  .max(32)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be a lower-case slug (a-z, 0-9, -)');

export const projectSettingsSchema = lazySchema(() =>
  z.object({ defaultEnvironment: z.string(), autoScaling: z.boolean(), notificationsEnabled: z.boolean() }),
).meta({ id: 'ProjectSettings' });
export type ProjectSettings = z.infer<typeof projectSettingsSchema>;

export const DEFAULT_PROJECT_SETTINGS: ProjectSettings = {
  defaultEnvironment: 'development',
  autoScaling: false,
  notificationsEnabled: true,
};
export const DEFAULT_ENVIRONMENTS = ['development', 'staging', 'production'] as const;

export const projectSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    organizationId: z.string(),
    status: projectStatusSchema,
    settings: projectSettingsSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
).meta({ id: 'Project' });
export type Project = z.infer<typeof projectSchema>;

export const projectSettingsPatchSchema = lazySchema(() =>
  z.strictObject({
    defaultEnvironment: environmentNameSchema.optional(),
    autoScaling: z.boolean().optional(),
    notificationsEnabled: z.boolean().optional(),
  }),
).meta({ id: 'ProjectSettingsPatch' });

const descriptionSchema = z.string().max(1000).nullable();

export const projectCreateSchema = lazySchema(() =>
  z.strictObject({
    name: nameSchema,
    description: descriptionSchema.optional(),
    settings: projectSettingsPatchSchema.optional(),
  }),
).meta({ id: 'ProjectCreate' });
export type ProjectCreate = z.infer<typeof projectCreateSchema>;

export const projectPatchSchema = lazySchema(() =>
  z.strictObject({
    name: nameSchema.optional(),
    description: descriptionSchema.optional(),
    settings: projectSettingsPatchSchema.optional(),
  }),
).meta({ id: 'ProjectPatch' });
export type ProjectPatch = z.infer<typeof projectPatchSchema>;

export const projectListQuerySchema = lazySchema(() =>
  z.strictObject({
    ...pagingQueryShape,
    status: projectStatusSchema.optional(),
    search: searchParam.optional(),
    /** Exact slug, to find one project by it. */
    slug: z.string().min(1).max(100).optional(),
  }),
);
export type ProjectListQuery = z.infer<typeof projectListQuerySchema>;

export const memberSchema = lazySchema(() =>
  z.object({ user: userRefSchema, role: projectRoleSchema, createdAt: timestampSchema }),
).meta({ id: 'Member' });
export type Member = z.infer<typeof memberSchema>;

export const memberAddSchema = lazySchema(() =>
  z.strictObject({ userId: z.string().max(100), role: projectRoleSchema }),
).meta({ id: 'MemberAdd' });
export type MemberAdd = z.infer<typeof memberAddSchema>;

export const memberPatchSchema = lazySchema(() => z.strictObject({ role: projectRoleSchema })).meta({
  id: 'MemberPatch',
});
export type MemberPatch = z.infer<typeof memberPatchSchema>;

export const memberListQuerySchema = lazySchema(() => z.strictObject({ ...pagingQueryShape }));

/** Environment configuration keys look like environment variable names. */
export const configKeySchema = z
  .string()
  .max(128)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'must start with a letter or _ and hold only letters, digits, _ . -');
export const configValueSchema = z.string().max(10_000);
export const MAX_CONFIG_KEYS = 200;

export const environmentSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    config: z.record(z.string(), z.string()),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  }),
).meta({ id: 'Environment' });
export type Environment = z.infer<typeof environmentSchema>;

/** A new environment's name: any environment name but `promote`, which names the promotion endpoint's path. */
const newEnvironmentNameSchema = environmentNameSchema.refine((name) => name !== 'promote', {
  message: 'promote is reserved: POST /projects/{projectId}/environments/promote promotes configuration',
});

export const environmentCreateSchema = lazySchema(() =>
  z.strictObject({ name: newEnvironmentNameSchema, config: z.record(configKeySchema, configValueSchema).optional() }),
).meta({ id: 'EnvironmentCreate' });
export type EnvironmentCreate = z.infer<typeof environmentCreateSchema>;

export const environmentPatchSchema = lazySchema(() =>
  z.strictObject({ config: z.record(configKeySchema, configValueSchema.nullable()) }),
).meta({ id: 'EnvironmentPatch' });
export type EnvironmentPatch = z.infer<typeof environmentPatchSchema>;

export const promoteSchema = lazySchema(() =>
  z.strictObject({ source: environmentNameSchema, target: environmentNameSchema }),
).meta({ id: 'Promote' });
export type Promote = z.infer<typeof promoteSchema>;
