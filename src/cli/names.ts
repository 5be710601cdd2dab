import type { PlatformClient } from '../client/client.js';
import type { Project } from '../contract/projects.js';
import type { Context } from './context.js';
import { NotFoundError, UsageError } from './errors.js';
import { isId, isOrganizationId, organizationBySlug } from './organization-slug.js';
import { quoted } from './output/quote.js';

/**
 * Names everywhere (docs/cli.md, "Names and ids"): an argument or flag that names a project takes its id or slug; a
 * user, its id or e-mail; a team, its id or name; an API key, its id or its name (among keys not revoked); a domain
 * claim, its id or the domain; an organization, its id or slug. Names compare case-insensitively (an exact match wins over one that differs in case).
 * The CLI resolves a name before it calls the API, with the lists the API has: one that matches nothing is a
 * not-found (exit 5) naming what was looked for and where; one that matches several is a usage error (exit 2) that
 * lists them, so that the user can give an id.
 */

/** What a project's slug may be: letters, digits and dashes, at most 100 (the list's `slug` filter's bound). */
const SLUG = /^[A-Za-z0-9-]{1,100}$/;

/** `ref (id)`, or the id alone when it was given as one: what a command reports it acted on. */
export function named(ref: string, id: string): string {
  return ref === id ? id : `${ref} (${id})`;
}

/** The acting organization as a person knows it (its name), for messages; its id when it cannot be read. */
async function organizationLabel(client: PlatformClient, org: string): Promise<string> {
  try {
    return (await client.organizations.get(org)).name;
  } catch {
    return org;
  }
}

/**
 * The one record among `candidates` whose `key` is `ref`: exact matches first, then ones that differ only in case.
 * None → not found (exit 5); several → ambiguous (exit 2), listing them.
 */
async function pick<T extends { id: string }>(
  candidates: T[],
  key: (item: T) => string,
  ref: string,
  what: { noun: string; by: string; where: () => Promise<string>; describe?: (item: T) => string },
): Promise<T> {
  const exact = candidates.filter((c) => key(c) === ref);
  const matches = exact.length > 0 ? exact : candidates.filter((c) => key(c).toLowerCase() === ref.toLowerCase());
  const [only, ...more] = matches;
  if (!only) throw new NotFoundError(`no ${what.noun} ${quoted(ref)} in organization ${await what.where()}`);
  if (more.length > 0) {
    const list = matches.map((m) => `  ${what.describe?.(m) ?? m.id}`).join('\n');
    throw new UsageError(`${matches.length} ${what.noun}s have the ${what.by} ${quoted(ref)}: give one's id\n${list}`);
  }
  return only;
}

/** The records of a paginated list, all of them (names are resolved against the whole list). */
async function all<T>(items: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The acting organization, the client and where a not-found happened. */
async function scope(ctx: Context) {
  const [client, org] = [await ctx.client(), await ctx.orgId()];
  return { client, org, where: () => organizationLabel(client, org) };
}

/** A project by id (`proj_…`), else by slug. Read either way: `projects get` shows it. */
export async function findProject(ctx: Context, ref: string): Promise<Project> {
  const { client, org, where } = await scope(ctx);
  if (isId('proj', ref)) return client.projects.get(ref);
  // What no slug can be is found in no list: asked for, the API would refuse the query itself (a 400, exit 7).
  const data = SLUG.test(ref) ? (await client.projects.list(org, { slug: ref.toLowerCase() })).data : [];
  return pick(data, (p) => p.slug, ref, { noun: 'project', by: 'slug', where });
}

/** A project's id, from its id or slug. */
export async function projectId(ctx: Context, ref: string): Promise<string> {
  return isId('proj', ref) ? ref : (await findProject(ctx, ref)).id;
}

/** A user's id, from its id or e-mail (an e-mail of a member of the acting organization). */
export async function userId(ctx: Context, ref: string): Promise<string> {
  if (isId('user', ref)) return ref;
  const { client, org, where } = await scope(ctx);
  if (!ref.includes('@')) {
    throw new NotFoundError(`no user ${quoted(ref)} in organization ${await where()} (give a user's id or e-mail)`);
  }
  // The search narrows the list to users whose e-mail contains the address; the exact one is picked from them. An
  // address too long or with control characters is no member's, and would not be a valid search.
  const searchable = ref.length <= 200 && !/\p{Cc}/u.test(ref);
  const found = searchable ? await all(client.users.listAll(org, { search: ref })) : [];
  return (await pick(found, (u) => u.email, ref, { noun: 'user', by: 'e-mail', where })).id;
}

/**
 * The user a command is about: the one given (by id or e-mail), else the credential's own (whoami). `how` says how to
 * give one, for an instance that does not know the credential's user.
 */
export async function userOrSelf(ctx: Context, given: string | undefined, how: string): Promise<string> {
  if (given) return userId(ctx, given);
  try {
    return (await (await ctx.client()).auth.whoami()).user.id;
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw err;
    throw new UsageError(`cannot tell who you are on this instance: ${how}`);
  }
}

/** Users' ids, from ids or e-mails, all resolved before anything is changed. */
export async function userIds(ctx: Context, refs: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of refs) ids.push(await userId(ctx, ref));
  return ids;
}

/** Teams' ids, from ids or names (one list read for all of them). */
export async function teamIds(ctx: Context, refs: string[]): Promise<string[]> {
  if (refs.every((r) => isId('team', r))) return refs;
  const { client, org, where } = await scope(ctx);
  const teams = await all(client.teams.listAll(org));
  const ids: string[] = [];
  for (const ref of refs) {
    ids.push(isId('team', ref) ? ref : (await pick(teams, (t) => t.name, ref, { noun: 'team', by: 'name', where })).id);
  }
  return ids;
}

/** A team's id, from its id or name. */
export async function teamId(ctx: Context, ref: string): Promise<string> {
  return (await teamIds(ctx, [ref]))[0] as string;
}

/** An invitation's id, from its id or the invitee's e-mail (among the pending invitations: one each at most). */
export async function invitationId(ctx: Context, ref: string): Promise<string> {
  if (isId('inv', ref)) return ref;
  const { client, org, where } = await scope(ctx);
  const pending = ref.includes('@') ? await all(client.invitations.listAll(org, { status: 'pending' })) : [];
  return (await pick(pending, (i) => i.email, ref, { noun: 'pending invitation', by: 'e-mail', where })).id;
}

/** An API key's id, from its id or its name among the keys not revoked (a rotated key's old name stays usable). */
export async function keyId(ctx: Context, ref: string): Promise<string> {
  if (isId('key', ref)) return ref;
  const { client, org, where } = await scope(ctx);
  const keys = (await all(client.apiKeys.listAll(org))).filter((k) => k.revokedAt === null);
  const describe = (k: { id: string; createdAt: string; prefix: string; last4: string }) =>
    `${k.id}  ${k.prefix}…${k.last4}  created ${k.createdAt}`;
  return (await pick(keys, (k) => k.name, ref, { noun: 'API key', by: 'name', where, describe })).id;
}

/** A domain claim's id, from its id or the domain's name (among the organization's claims: one each at most). */
export async function domainId(ctx: Context, ref: string): Promise<string> {
  if (isId('dom', ref)) return ref;
  const { client, org, where } = await scope(ctx);
  const claims = (await client.domains.list(org)).data;
  return (await pick(claims, (d) => d.domain, ref.replace(/\.$/, ''), { noun: 'domain', by: 'name', where })).id;
}

/** A SCIM token's id, from its id or name. */
export async function scimTokenId(ctx: Context, ref: string): Promise<string> {
  if (isId('scimtok', ref)) return ref;
  const { client, org, where } = await scope(ctx);
  const tokens = (await client.scim.listTokens(org)).data;
  return (await pick(tokens, (t) => t.name, ref, { noun: 'SCIM token', by: 'name', where })).id;
}

/** An organization's id, from its id or slug. */
export async function organizationId(ctx: Context, ref: string): Promise<string> {
  return isOrganizationId(ref) ? ref : organizationBySlug(await ctx.client(), ref);
}
