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

/**
 * The id of the organization with the slug `ref` among the ones `client`'s credential can act in: the list of them, or,
 * for a credential that may not read it (a key without `org:read`), its own organization as `whoami` tells it.
 */
export async function organizationBySlug(client: PlatformClient, ref: string): Promise<string> {
  const slug = ref.toLowerCase();
  let orgs: { id: string; slug: string }[];
  try {
    orgs = (await client.organizations.list()).data;
  } catch (err) {
    if ((err as { kind?: string }).kind !== 'forbidden') throw err;
    orgs = [(await client.auth.whoami()).organization];
  }
  const org = orgs.find((o) => o.slug === slug);
  if (!org) throw new NotFoundError(`no organization ${quoted(ref)} among the ones this credential can act in`);
  return org.id;
}
