// SCIM Users ↔ the organization's members (docs/scim.md): userName is the e-mail; displayName and the name's parts
// make the member's name; active false suspends with everything revoked; the Enterprise User extension's attributes
// are metadata under their short names. What SCIM says beyond the member's record (externalId, the name's parts,
// e-mails as sent) is kept beside it (store/scim.ts).

import { nameSchema } from '../../contract/common.js';
import { API_BASE } from '../../contract/endpoint.js';
import { emailSchema, type User } from '../../contract/users.js';
import type { Ctx } from '../context.js';
import { deleteUser, MAX_METADATA_KEYS, suspendUser, unsuspendUser } from '../operations/users.js';
import { domainOf } from '../sso/routing.js';
import type { ScimExtra } from '../store/scim.js';
import { asDocument, type Doc, field, isObject } from './document.js';
import { badRequest, ScimError } from './errors.js';
import { matches, parseFilter, userNameAskedFor } from './filter.js';
import { applyAll, parsePatch } from './patch.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** The Enterprise User attributes kept as metadata, under these names. */
const ENTERPRISE_KEYS = ['employeeNumber', 'costCenter', 'organization', 'division', 'department'] as const;

/** The attributes a user's record answers itself: never kept beside it. */
const OWN = new Set(['schemas', 'id', 'meta', 'username', 'displayname', 'active', 'externalid', 'password', 'groups']);

/** How much of what SCIM sends beyond the record is kept (name parts, e-mails, phone numbers…). */
const MAX_EXTRA_BYTES = 16 * 1024;

/** An organization's SCIM base URL, under the instance's public URL: what its identity provider is given. */
export function scimBaseUrl(publicUrl: string, orgId: string): string {
  return `${publicUrl}${API_BASE}/organizations/${orgId}/scim`;
}

/** The SCIM base URL of the request's organization. */
export function scimBase(ctx: Ctx): string {
  return scimBaseUrl(ctx.publicUrl, ctx.principal.orgId);
}

/** A member as a SCIM user. */
export function userResource(ctx: Ctx, user: User, extra: ScimExtra | undefined): Doc {
  const attributes = extra?.attributes ?? {};
  const stored = (attributes.name ?? {}) as Doc;
  const enterprise: Doc = {};
  for (const key of ENTERPRISE_KEYS) if (user.metadata[key] !== undefined) enterprise[key] = user.metadata[key];
  if (user.metadata.manager !== undefined) enterprise.manager = { value: String(user.metadata.manager) };
  const hasEnterprise = Object.keys(enterprise).length > 0;
  return {
    schemas: hasEnterprise ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: user.id,
    ...(extra?.externalId && { externalId: extra.externalId }),
    userName: user.email,
    ...attributes,
    name: { ...stored, ...(user.name !== null && { formatted: user.name }) },
    ...(user.name !== null && { displayName: user.name }),
    emails: Array.isArray(attributes.emails) ? attributes.emails : [{ value: user.email, type: 'work', primary: true }],
    active: user.status !== 'suspended',
    ...(hasEnterprise && { [ENTERPRISE_SCHEMA]: enterprise }),
    meta: {
      resourceType: 'User',
      created: user.createdAt,
      lastModified: user.updatedAt,
      location: `${scimBase(ctx)}/Users/${user.id}`,
      version: `W/"${user.updatedAt}"`,
    },
  };
}

/** `true`, `false`, and the strings Entra sends for them ("True", "False"). */
function booleanOf(value: unknown, what: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw badRequest('invalidValue', `${what} must be true or false`);
}

function text(value: unknown, what: string, max = 500): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw badRequest('invalidValue', `${what} must be a string`);
  const s = String(value).trim();
  if (s.length > max) throw badRequest('invalidValue', `${what} is longer than ${max} characters`);
  return s;
}

/** What a SCIM user document says, as the member's fields. */
interface Mapped {
  email: string;
  name: string | null;
  /** Undefined when the document does not say: the member stays as they are (a new one is active). */
  active: boolean | undefined;
  externalId: string | null;
  /** Enterprise attributes: a value, or null to remove it. */
  enterprise: Record<string, string | null>;
  attributes: Doc;
}

function mapDocument(doc: Doc): Mapped {
  const email = text(field(doc, 'userName'), 'userName', 254);
  if (!email || !emailSchema.safeParse(email).success) {
    throw badRequest('invalidValue', 'userName must be the e-mail address of the user');
  }
  const rawName = field(doc, 'name');
  if (rawName !== undefined && rawName !== null && (typeof rawName !== 'object' || Array.isArray(rawName))) {
    throw badRequest('invalidValue', 'name must be an object (givenName, familyName, formatted…)');
  }
  const emails = field(doc, 'emails');
  if (emails !== undefined && emails !== null && !(Array.isArray(emails) && emails.every(isObject))) {
    throw badRequest('invalidValue', 'emails must be a list of objects (value, type, primary)');
  }
  const name = (rawName ?? {}) as Doc;
  const given = text(field(name, 'givenName'), 'name.givenName');
  const family = text(field(name, 'familyName'), 'name.familyName');
  const display =
    text(field(doc, 'displayName'), 'displayName') ??
    text(field(name, 'formatted'), 'name.formatted') ??
    ([given, family].filter(Boolean).join(' ') || undefined);
  const checkedName = display === undefined ? null : nameSchema.safeParse(display.slice(0, 100));
  const activeValue = field(doc, 'active');
  const ext = (field(doc, ENTERPRISE_SCHEMA) ?? {}) as Doc;
  const enterprise: Record<string, string | null> = {};
  for (const key of ENTERPRISE_KEYS) enterprise[key] = text(field(ext, key), `${ENTERPRISE_SCHEMA}:${key}`) ?? null;
  const manager = field(ext, 'manager');
  enterprise.manager =
    text(manager !== null && typeof manager === 'object' ? field(manager as Doc, 'value') : manager, 'manager') ?? null;
  const attributes: Doc = {};
  for (const [k, v] of Object.entries(doc)) {
    if (!OWN.has(k.toLowerCase()) && !/^urn:/i.test(k)) attributes[k] = v;
  }
  // Only the name's parts are kept: `formatted` is the member's name itself.
  for (const key of Object.keys(attributes)) {
    if (key.toLowerCase() !== 'name') continue;
    const { formatted: _, ...parts } = (attributes[key] ?? {}) as Doc;
    delete attributes[key];
    attributes.name = parts;
  }
  if (JSON.stringify(attributes).length > MAX_EXTRA_BYTES) {
    throw badRequest('invalidValue', `the user's other attributes take more than ${MAX_EXTRA_BYTES / 1024} KiB`);
  }
  return {
    email,
    name: checkedName?.success ? checkedName.data : null,
    active: activeValue === undefined || activeValue === null ? undefined : booleanOf(activeValue, 'active'),
    externalId: text(field(doc, 'externalId'), 'externalId', 200) ?? null,
    enterprise,
    attributes,
  };
}

/** The member's metadata with the enterprise attributes set (or removed). */
function withEnterprise(metadata: User['metadata'], enterprise: Mapped['enterprise']): User['metadata'] {
  const next = { ...metadata };
  for (const [key, value] of Object.entries(enterprise)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  if (Object.keys(next).length > MAX_METADATA_KEYS)
    throw badRequest('invalidValue', `at most ${MAX_METADATA_KEYS} metadata keys`);
  return next;
}

/** A member of the organization, or `404`. */
async function member(ctx: Ctx, id: string): Promise<User> {
  const user = await ctx.stores.users.get(ctx.principal.orgId, id);
  if (!user) throw new ScimError(404, undefined, `no user ${id}`);
  return user;
}

/** Owners are never deprovisioned through SCIM: a directory cannot lock an organization out of itself. */
function guardOwner(user: User, what: string): void {
  if (user.role === 'owner') {
    throw new ScimError(
      403,
      undefined,
      `${user.email} is an owner of the organization: owners are never ${what} through SCIM`,
    );
  }
}

/**
 * `GET /Users`: a page of the members in the order they joined, or those a filter matches — filtered in memory over the
 * members (a `userName eq` reads the one member it names).
 */
export async function listUsers(ctx: Ctx, query: URLSearchParams) {
  const orgId = ctx.principal.orgId;
  const filterText = query.get('filter');
  const filter = filterText ? parseFilter(filterText) : undefined;
  const { startIndex, count } = paging(query);
  // The members as resources, with what SCIM said of them: read for these members, or for all (`everyone`) at once.
  const resourcesOf = async (users: User[], everyone = false): Promise<Doc[]> => {
    const extras = await ctx.stores.scim.extras(orgId, 'User', everyone ? undefined : users.map((u) => u.id));
    return users.map((u) => userResource(ctx, u, extras.get(u.id)));
  };
  if (!filter) {
    // An identity provider's full import walks every page: each reads its own members, not all of them.
    const page = count === 0 ? [] : await ctx.stores.users.slice(orgId, startIndex - 1, count);
    return pageResponse(await resourcesOf(page), await ctx.stores.users.count(orgId), startIndex);
  }
  const one = userNameAskedFor(filter);
  let resources: Doc[];
  if (one !== undefined) {
    const account = await ctx.stores.users.accountByEmail(one);
    const user = account && (await ctx.stores.users.get(orgId, account.id));
    resources = await resourcesOf(user ? [user] : []);
  } else {
    resources = await resourcesOf(await ctx.stores.users.all(orgId), true);
  }
  return listResponse(
    resources.filter((r) => matches(filter, r)),
    startIndex,
    count,
  );
}

/** `startIndex` (1-based) and `count` (≤ 100), as RFC 7644 §3.4.2.4 reads them: out-of-range values are clamped. */
export function paging(query: URLSearchParams): { startIndex: number; count: number } {
  const int = (name: string, fallback: number) => {
    const raw = query.get(name);
    if (raw === null || raw === '') return fallback;
    if (!/^-?\d{1,9}$/.test(raw)) throw badRequest('invalidValue', `${name} must be an integer`);
    return Number(raw);
  };
  return { startIndex: Math.max(1, int('startIndex', 1)), count: Math.min(100, Math.max(0, int('count', 100))) };
}

/** A list response of the page `startIndex`…`startIndex + count - 1` of `all` (RFC 7644 §3.4.2). */
export function listResponse(all: Doc[], startIndex: number, count: number) {
  return pageResponse(all.slice(startIndex - 1, startIndex - 1 + count), all.length, startIndex);
}

/** A list response of one page, from `startIndex`, of `total` resources. */
export function pageResponse(page: Doc[], total: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: page.length, Resources: page };
}

/** `GET /Users/{id}`. */
export async function getUser(ctx: Ctx, id: string) {
  const user = await member(ctx, id);
  return userResource(ctx, user, await ctx.stores.scim.extra(ctx.principal.orgId, 'User', id));
}

/**
 * Whether the organization verified the e-mail's domain. A `legacy` claim (an earlier release's, never proven) routes
 * single sign-on as before, but does not let SCIM make members — nor bring in people of other organizations.
 */
async function inVerifiedDomain(ctx: Ctx, email: string): Promise<boolean> {
  const holder = await ctx.stores.domains.holder(domainOf(email));
  return holder?.organizationId === ctx.principal.orgId && holder.status === 'verified';
}

/**
 * `POST /Users`: an active, verified member with the role `member`, and no e-mail sent — for an e-mail of a domain the
 * organization verified. An account the platform already has (another organization's person) joins as a member.
 */
export async function createUser(ctx: Ctx, body: unknown) {
  const mapped = mapDocument(asDocument(body));
  if (!(await inVerifiedDomain(ctx, mapped.email))) {
    throw badRequest(
      'invalidValue',
      `${domainOf(mapped.email)} is not a verified domain of this organization: verify it first (plat domains add)`,
    );
  }
  const orgId = ctx.principal.orgId;
  return ctx.tx(async (ctx) => {
    const account = await ctx.stores.users.accountByEmail(mapped.email);
    if (account && (await ctx.stores.users.get(orgId, account.id))) {
      throw new ScimError(409, 'uniqueness', `${mapped.email} is already a member of the organization`);
    }
    const now = ctx.now();
    const userId = account?.id ?? ctx.ids('user');
    if (!account) await ctx.stores.users.insertAccount(userId, mapped.email, true, now);
    // The domain is this organization's (verified): a password another organization imported for the address is not
    // the person's to keep (docs/migrate.md).
    else if (account.passwordImportedBy !== null && account.passwordImportedBy !== orgId) {
      await ctx.stores.users.discardImportedPassword(account.id, now);
    }
    await ctx.stores.users.insertMembership({
      orgId,
      userId,
      email: account?.email ?? mapped.email,
      name: mapped.name,
      role: 'member',
      // Made active (joined), then suspended if SCIM says so: unsuspended later, it is active again, not pending.
      status: 'active',
      metadata: withEnterprise({}, mapped.enterprise),
      now,
    });
    if (mapped.active === false) {
      const made = (await ctx.stores.users.get(orgId, userId)) as User;
      await ctx.stores.users.update(orgId, { ...made, status: 'suspended' });
    }
    const extra = { externalId: mapped.externalId, attributes: mapped.attributes };
    await ctx.stores.scim.setExtra(orgId, 'User', userId, extra);
    await ctx.emit(
      'user.provisioned',
      { type: 'user', id: userId },
      { email: mapped.email, role: 'member', via: 'scim' },
    );
    return userResource(ctx, (await ctx.stores.users.get(orgId, userId)) as User, extra);
  });
}

/**
 * Writes a member's new SCIM document, made by `build` from the member as they are inside the transaction (so that
 * concurrent requests apply one after the other): name, enterprise metadata, what is kept beside it; `active` false
 * suspends (with everything revoked), true unsuspends, absent leaves the member as they are. The e-mail cannot change
 * through SCIM (`400 mutability`).
 */
async function save(ctx: Ctx, id: string, build: (ctx: Ctx, user: User) => Doc | Promise<Doc>) {
  const orgId = ctx.principal.orgId;
  return ctx.tx(async (ctx) => {
    let current = await member(ctx, id);
    const mapped = mapDocument(await build(ctx, current));
    if (mapped.email.toLowerCase() !== current.email.toLowerCase()) {
      throw badRequest(
        'mutability',
        `userName is the member's e-mail, ${current.email}: it cannot be changed through SCIM`,
      );
    }
    if (mapped.active === false && current.status !== 'suspended') {
      guardOwner(current, 'suspended');
      current = await suspendUser(ctx, id);
    } else if (mapped.active === true && current.status === 'suspended') {
      current = await unsuspendUser(ctx, id);
    }
    const metadata = withEnterprise(current.metadata, mapped.enterprise);
    const changed = mapped.name !== current.name || JSON.stringify(metadata) !== JSON.stringify(current.metadata);
    if (changed) {
      current = { ...current, name: mapped.name, metadata, updatedAt: ctx.now() };
      await ctx.stores.users.update(orgId, current);
      await ctx.emit('user.updated', { type: 'user', id }, { fields: ['name', 'metadata'], via: 'scim' });
    }
    const extra = { externalId: mapped.externalId, attributes: mapped.attributes };
    await ctx.stores.scim.setExtra(orgId, 'User', id, extra);
    return userResource(ctx, current, extra);
  });
}

/** `PUT /Users/{id}`: replaces the user's attributes (without `active`, the member stays as they are). */
export async function replaceUser(ctx: Ctx, id: string, body: unknown) {
  const doc = asDocument(body);
  return save(ctx, id, () => doc);
}

/** `PATCH /Users/{id}`: the operations applied to the user's document as it is, then saved as a PUT of it. */
export async function patchUser(ctx: Ctx, id: string, body: unknown) {
  const ops = parsePatch(body);
  return save(ctx, id, async (ctx, user) => {
    const doc = userResource(ctx, user, await ctx.stores.scim.extra(ctx.principal.orgId, 'User', id));
    const patched = applyAll(doc, ops);
    // Removing `active` is no deactivation: the member stays as they are.
    if (field(patched, 'active') === undefined) patched.active = user.status !== 'suspended';
    return patched;
  });
}

/** `DELETE /Users/{id}`: the member leaves the organization (owners: `403`). */
export async function deleteScimUser(ctx: Ctx, id: string): Promise<void> {
  const user = await member(ctx, id);
  guardOwner(user, 'removed');
  await deleteUser(ctx, id);
}
