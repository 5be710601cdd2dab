import { randomBytes } from 'node:crypto';
import type { List } from '../../contract/common.js';
import {
  CHALLENGE_LABEL,
  CHALLENGE_PREFIX,
  DOMAINS_PER_ORGANIZATION,
  type Domain,
  type DomainCreate,
  domainNameSchema,
} from '../../contract/domains.js';
import type { BaseCtx, Ctx } from '../context.js';
import { conflict, invalidField, notFound, PlatformError } from '../errors.js';
import type { StoredDomain } from '../store/domains.js';
import { audit } from './auth.js';

// Domains an organization proves it owns by a DNS TXT record (docs/domains.md): where its single sign-on applies.

/** The TXT record's name for a domain. */
export function challengeName(domain: string): string {
  return `${CHALLENGE_LABEL}.${domain}`;
}

export function domainRecord(d: StoredDomain): Domain {
  return {
    id: d.id,
    organizationId: d.organizationId,
    domain: d.domain,
    status: d.status,
    verification: { type: 'dns_txt', name: challengeName(d.domain), value: `${CHALLENGE_PREFIX}${d.token}` },
    createdAt: d.createdAt,
    verifiedAt: d.verifiedAt,
  };
}

/** `GET /organizations/{orgId}/domains`: every claim of the organization, by name. */
export async function listDomains(ctx: Ctx, orgId: string): Promise<Pick<List<Domain>, 'data'>> {
  return { data: (await ctx.stores.domains.list(orgId)).map(domainRecord) };
}

/** A claim not yet in the store: `pending`, with a fresh token. */
function newClaim(ctx: BaseCtx, orgId: string, domain: string): StoredDomain {
  return {
    id: ctx.ids('domain'),
    organizationId: orgId,
    domain,
    status: 'pending',
    token: randomBytes(16).toString('hex'),
    createdAt: ctx.now(),
    verifiedAt: null,
  };
}

/**
 * Whether the organization may claim the domain (in the caller's transaction): `409` when it already does, when it
 * claims as many as it may, or when another organization verified the domain (its claim could never be verified).
 */
async function checkClaim(ctx: BaseCtx, orgId: string, domain: string): Promise<void> {
  if (await ctx.stores.domains.byName(orgId, domain)) {
    throw conflict(`this organization already claims ${domain}`);
  }
  if ((await ctx.stores.domains.count(orgId)) >= DOMAINS_PER_ORGANIZATION) {
    throw conflict(`an organization claims at most ${DOMAINS_PER_ORGANIZATION} domains: remove one first`);
  }
  const holder = await ctx.stores.domains.holder(domain);
  if (holder?.status === 'verified' && holder.organizationId !== orgId) {
    throw conflict(`${domain} is verified by another organization`);
  }
}

/** `POST /organizations/{orgId}/domains`: a `pending` claim, with the TXT record that proves it. */
export async function createDomain(ctx: Ctx, orgId: string, input: DomainCreate): Promise<Domain> {
  const domain = input.domain.toLowerCase();
  return ctx.tx(async (ctx) => {
    await checkClaim(ctx, orgId, domain);
    const claim = newClaim(ctx, orgId, domain);
    await ctx.stores.domains.insert(claim);
    await ctx.emit('domain.created', { type: 'domain', id: claim.id }, { domain });
    return domainRecord(claim);
  });
}

/** A claim of the acting organization, or `404`. */
async function loadDomain(ctx: Ctx, domainId: string): Promise<StoredDomain> {
  const d = await ctx.stores.domains.get(ctx.principal.orgId, domainId);
  if (!d) throw notFound('domain');
  return d;
}

/** `GET /domains/{domainId}`. */
export async function getDomain(ctx: Ctx, domainId: string): Promise<Domain> {
  return domainRecord(await loadDomain(ctx, domainId));
}

/** How a domain was proven: its DNS record, or the instance's operator's word (`plat local domains verify`). */
export type ProofMethod = 'dns' | 'operator';

/**
 * Makes the claim the domain's verified one, in the caller's transaction: `409` when another organization verified it
 * first. Another organization's `legacy` hold (never proven) yields: it goes back to `pending`, and the domain leaves
 * that organization's single sign-on, with an event in its audit log that says so. The claim's own event is the
 * caller's (its actor differs).
 */
async function takeDomain(ctx: BaseCtx, claim: StoredDomain): Promise<StoredDomain> {
  const holder = await ctx.stores.domains.holder(claim.domain);
  if (holder && holder.organizationId !== claim.organizationId) {
    if (holder.status === 'verified') throw conflict(`${claim.domain} is verified by another organization`);
    const now = ctx.now();
    await ctx.stores.domains.setStatus(holder.id, 'pending', null);
    const dropped = await ctx.stores.sso.dropDomain(holder.organizationId, claim.domain, now);
    await audit(
      ctx,
      holder.organizationId,
      { type: 'system', id: 'domain verification' },
      'domain.lost',
      { type: 'domain', id: holder.id },
      { domain: claim.domain, reason: 'verified by another organization', ssoDomainRemoved: dropped },
    );
  }
  const verifiedAt = ctx.now();
  await ctx.stores.domains.setStatus(claim.id, 'verified', verifiedAt);
  return { ...claim, status: 'verified', verifiedAt };
}

/** What a failed lookup says, for the `422`. */
function lookupFailure(name: string, err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  if (code === 'ENOTFOUND' || code === 'ENODATA') return `no TXT record at ${name}`;
  return `the TXT record of ${name} could not be looked up (${typeof code === 'string' ? code : 'DNS error'}): try again`;
}

/** Up to three of the values found, each cut to 80 characters, as JSON strings. */
function foundValues(values: readonly string[]): string {
  const shown = values.slice(0, 3).map((v) => JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v));
  return values.length > 3 ? `${shown.join(', ')} and ${values.length - 3} more` : shown.join(', ');
}

/**
 * `POST /domains/{domainId}/verify`: looks the TXT record up now. `verified` when one of the records is the claim's
 * value; else `422` saying what was found. A verified claim answers as it is, without a lookup.
 */
export async function verifyDomain(ctx: Ctx, domainId: string): Promise<Domain> {
  const claim = await loadDomain(ctx, domainId);
  if (claim.status === 'verified') return domainRecord(claim);
  const holder = await ctx.stores.domains.holder(claim.domain);
  if (holder?.status === 'verified' && holder.organizationId !== claim.organizationId) {
    throw conflict(`${claim.domain} is verified by another organization`);
  }
  const name = challengeName(claim.domain);
  const expected = `${CHALLENGE_PREFIX}${claim.token}`;
  let values: string[];
  try {
    values = await ctx.txt(name);
  } catch (err) {
    throw invalidField('domain', lookupFailure(name, err));
  }
  if (!values.includes(expected)) {
    const found = values.filter((v) => v.startsWith(CHALLENGE_PREFIX));
    throw invalidField(
      'domain',
      found.length === 0
        ? `no ${CHALLENGE_PREFIX} record at ${name} (found ${values.length} other TXT record${values.length === 1 ? '' : 's'})`
        : `${name} has ${foundValues(found)}, not the value of this claim`,
    );
  }
  return ctx.tx(async (ctx) => {
    // Read again under the write lock: the claim may have gone, or been verified, while DNS answered.
    const current = await loadDomain(ctx, domainId);
    if (current.status === 'verified') return domainRecord(current);
    const verified = await takeDomain(ctx, current);
    await ctx.emit('domain.verified', { type: 'domain', id: current.id }, { domain: current.domain, method: 'dns' });
    return domainRecord(verified);
  });
}

/** `DELETE /domains/{domainId}`: the claim goes, and the domain leaves the organization's single sign-on. */
export async function deleteDomain(ctx: Ctx, domainId: string): Promise<void> {
  await ctx.tx(async (ctx) => {
    const claim = await loadDomain(ctx, domainId);
    await ctx.stores.domains.remove(claim.organizationId, claim.id);
    const dropped = await ctx.stores.sso.dropDomain(claim.organizationId, claim.domain, ctx.now());
    await ctx.emit(
      'domain.deleted',
      { type: 'domain', id: claim.id },
      { domain: claim.domain, status: claim.status, ssoDomainRemoved: dropped },
    );
  });
}

/**
 * The instance's operator vouches for a domain without DNS (`plat local domains verify`): the claim of the organization
 * (by id or slug; `404` when there is none), made if there is none, becomes its verified one — `409` (as through the
 * API) when another organization verified it. An event with the operator as actor.
 */
export async function vouchForDomain(base: BaseCtx, org: string, name: string): Promise<Domain> {
  if (!domainNameSchema.safeParse(name).success) throw invalidField('domain', 'must be a domain name');
  const domain = name.toLowerCase();
  return base.tx(async (ctx) => {
    const found =
      (await ctx.stores.organizations.get(org)) ?? (await ctx.stores.organizations.bySlug(org.toLowerCase()));
    if (!found) throw new PlatformError('not_found', `no organization ${org}`);
    const orgId = found.id;
    let claim = await ctx.stores.domains.byName(orgId, domain);
    if (claim?.status === 'verified') return domainRecord(claim);
    if (!claim) {
      await checkClaim(ctx, orgId, domain);
      claim = newClaim(ctx, orgId, domain);
      await ctx.stores.domains.insert(claim);
    }
    const verified = await takeDomain(ctx, claim);
    await audit(
      ctx,
      orgId,
      { type: 'system', id: 'plat local' },
      'domain.verified',
      {
        type: 'domain',
        id: claim.id,
      },
      { domain, method: 'operator' },
    );
    return domainRecord(verified);
  });
}
