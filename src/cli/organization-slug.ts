import type { PlatformClient } from '../client/client.js';
import { NotFoundError } from './errors.js';
import { quoted } from './output/quote.js';

/**
 * The part of names.ts the context needs to send `--org acme` as an id (names.ts itself works on a context): what an
 * id looks like, and an organization's id from its slug.
 */

/** An id of the platform's kind `prefix` (`proj_…`): taken as it is, never looked up as a name. */
export const isId = (prefix: string, ref: string) => new RegExp(`^${prefix}_[A-Za-z0-9]+$`).test(ref);

/** Whether `ref` is an organization's id (else it is taken as a slug). */
export const isOrganizationId = (ref: string) => isId('org', ref);

/** The id of the organization with the slug `ref` among the ones `client`'s credential can act in. */
export async function organizationBySlug(client: PlatformClient, ref: string): Promise<string> {
  const { data } = await client.organizations.list();
  const org = data.find((o) => o.slug === ref.toLowerCase());
  if (!org) throw new NotFoundError(`no organization ${quoted(ref)} among the ones this credential can act in`);
  return org.id;
}
