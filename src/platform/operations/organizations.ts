import type { Organization, OrganizationCreate, OrganizationPatch } from '../../contract/organizations.js';
import { sessionCutOff } from '../auth/credentials.js';
import type { Ctx } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { uniqueSlug } from './slug.js';

/**
 * The organizations the credential can act in: all of its owner's for multi-organization credentials, less those
 * that have revoked the session of a user token.
 */
export async function listOrganizations(ctx: Ctx): Promise<{ data: Organization[] }> {
  const p = ctx.principal;
  const all = await ctx.stores.organizations.listForUser(p.userId);
  if (!p.multiOrg) return { data: all.filter((o) => o.id === p.homeOrgId) };
  const data: Organization[] = [];
  for (const o of all) {
    if (!(await sessionCutOff(ctx, p, o.id))) data.push(o);
  }
  return { data };
}

export async function getOrganization(ctx: Ctx, orgId: string): Promise<Organization> {
  const org = await ctx.stores.organizations.get(orgId);
  if (!org) throw notFound('organization');
  return org;
}

/**
 * Creates an organization on `free` with the caller as its owner. Only credentials that can act in several
 * organizations (user tokens, multi-organization keys) may: a single-organization key could never use the result.
 */
export async function createOrganization(ctx: Ctx, input: OrganizationCreate): Promise<Organization> {
  const p = ctx.principal;
  if (!p.multiOrg) throw forbidden('a single-organization API key cannot create organizations');
  return ctx.tx(async (ctx) => {
    const now = ctx.now();
    const me = await ctx.stores.users.get(p.orgId, p.userId);
    const org: Organization = {
      id: ctx.ids('organization'),
      name: input.name,
      slug: await uniqueSlug(input.name, 'org', (s) => ctx.stores.organizations.slugTaken(s)),
      plan: 'free',
      mfa: 'optional',
      createdAt: now,
      updatedAt: now,
    };
    await ctx.stores.organizations.insert(org);
    await ctx.stores.users.insertMembership({
      orgId: org.id,
      userId: p.userId,
      email: me?.email ?? '',
      name: me?.name ?? null,
      role: 'owner',
      status: 'active',
      now,
    });
    await ctx.emit('organization.created', { type: 'organization', id: org.id }, { name: org.name }, org.id);
    return org;
  });
}

/**
 * Renames an organization, or (owners only) changes its plan, effective at once, or its mfa policy, effective at each
 * member's next sign-in (docs/mfa.md).
 */
export async function updateOrganization(ctx: Ctx, orgId: string, patch: OrganizationPatch): Promise<Organization> {
  if (patch.plan !== undefined && ctx.principal.role !== 'owner') throw forbidden('only owners can change the plan');
  if (patch.mfa !== undefined && ctx.principal.role !== 'owner')
    throw forbidden('only owners can change the mfa policy');
  return ctx.tx(async (ctx) => {
    const org = await ctx.stores.organizations.get(orgId);
    if (!org) throw notFound('organization');
    const next: Organization = { ...org, ...patch, updatedAt: ctx.now() };
    await ctx.stores.organizations.update(next);
    const policy = patch.mfa === undefined ? {} : { mfa: patch.mfa };
    await ctx.emit(
      'organization.updated',
      { type: 'organization', id: orgId },
      { fields: Object.keys(patch), ...policy },
    );
    return next;
  });
}
