import { nameSchema } from '../../contract/common.js';
import { batchEmailSchema, type User } from '../../contract/users.js';
import type { BaseCtx } from '../context.js';
import type { StoredSso } from '../store/sso.js';
import type { Account } from '../store/users.js';
import { audit } from './auth.js';
import { MAX_METADATA_KEYS } from './users.js';

/** What an identity provider said of the person, once its response or ID token passed every check. */
export interface IdpProfile {
  /** SAML NameID or OIDC `sub`: who the person is at the identity provider, whatever their e-mail. */
  subject: string;
  /** Every attribute (SAML) or claim (OIDC) it sent, each as its list of values. */
  attributes: Record<string, string[]>;
  /** OIDC's `email_verified`, when the provider said (SAML attributes are the IdP administrator's: not asked). */
  emailVerified?: boolean;
}

/** Why a person the identity provider vouched for may not sign in; the page and the event say it. */
export interface Refusal {
  /** 400: the identity provider's answer lacks what is needed; 403: the person is refused. */
  status: 400 | 403;
  /** The check that failed, in a few words. */
  check: string;
}

/** The fields the mapping fills from the identity provider's attributes: e-mail, name, then metadata. */
export interface MappedProfile {
  /** The one e-mail address of the mapped attribute; null when it has none, several, or not an address. */
  email: string | null;
  name: string | null;
  metadata: Record<string, string>;
}

/** The sizes of metadata a user may hold (docs/api.md, "Decisions"), which the mapping respects. */
const METADATA_KEY_LENGTH = 40;
const METADATA_VALUE_LENGTH = 500;

/**
 * Applies the organization's attribute mapping (`field → attribute`): `email` and `name` from theirs, every other
 * field into metadata (first value; values joined by `, ` when several; cut to the sizes metadata allows).
 */
export function mapProfile(config: Pick<StoredSso, 'attributeMapping'>, p: IdpProfile): MappedProfile {
  const attributeValue = (attribute: string): string | null => {
    const values = (p.attributes[attribute] ?? []).map((v) => v.trim()).filter((v) => v !== '');
    return values.length === 0 ? null : values.join(', ');
  };
  const metadata: Record<string, string> = {};
  for (const [field, attribute] of Object.entries(config.attributeMapping)) {
    if (field === 'email' || field === 'name') continue;
    const value = attributeValue(attribute);
    if (value === null || field.length > METADATA_KEY_LENGTH) continue;
    if (Object.keys(metadata).length >= MAX_METADATA_KEYS) break;
    metadata[field] = value.slice(0, METADATA_VALUE_LENGTH);
  }
  const emails = (p.attributes[config.attributeMapping.email ?? ''] ?? []).map((v) => v.trim()).filter(Boolean);
  // Exactly one address: several joined would pass the domain check on their last one.
  const email = emails.length === 1 && batchEmailSchema.safeParse(emails[0]).success ? (emails[0] as string) : null;
  const rawName = config.attributeMapping.name ? attributeValue(config.attributeMapping.name) : null;
  const name = rawName === null ? null : nameSchema.safeParse(rawName.slice(0, 100));
  return { email: email?.toLowerCase() ?? null, name: name?.success ? name.data : null, metadata };
}

/**
 * Whether an organization's single sign-on governs this account, given its membership there (docs/sso.md): a domain claim proves nothing of owning
 * the domain, so it governs only the organization's own people — its active and suspended members, and pending ones
 * the invitation made (no password, no other organization). An account that exists elsewhere, invited but not yet
 * accepting, is not handed to the organization's identity provider: it accepts the invitation first.
 */
export async function governs(ctx: BaseCtx, account: Account, member: User | undefined): Promise<boolean> {
  if (!member) return false;
  if (member.status !== 'pending') return true;
  return account.passwordHash === null && (await ctx.stores.users.membershipCount(account.id)) === 1;
}

/** The outcome of provisioning: the user who signs in, or why nobody does. */
export type Provisioned = { userId: string; provisioned: boolean } | { refused: Refusal };

/**
 * Just-in-time provisioning and linking (docs/sso.md), in the caller's transaction. The mapped e-mail is required
 * and its domain must be one of the configuration's. A known identity (organization, subject) signs in as its user,
 * even if the e-mail changed; an unknown one links to the organization's user with that e-mail (a pending one becomes
 * active and verified, its invitation accepted), or else a new active user is made with the default role, the
 * mapped name and metadata (`user.provisioned`). A suspended user is refused. Name and mapped metadata are brought up
 * to date at every sign-in.
 */
export async function provisionFromIdp(ctx: BaseCtx, config: StoredSso, profile: IdpProfile): Promise<Provisioned> {
  const orgId = config.organizationId;
  const mapped = mapProfile(config, profile);
  if (!mapped.email) {
    const check = `the identity provider sent no single e-mail address as ${config.attributeMapping.email} (email)`;
    return { refused: { status: 400, check } };
  }
  if (profile.emailVerified === false) {
    return { refused: { status: 403, check: 'the identity provider has not verified the e-mail address' } };
  }
  const domain = mapped.email.slice(mapped.email.lastIndexOf('@') + 1);
  if (!config.domains.includes(domain)) {
    return { refused: { status: 403, check: "the e-mail's domain is not one of the organization's" } };
  }
  const now = ctx.now();
  const known = await ctx.stores.ssoSignIn.identity(orgId, profile.subject);
  let user: User | undefined = known === undefined ? undefined : await ctx.stores.users.get(orgId, known);
  let provisioned = false;
  if (!user) {
    const account = await ctx.stores.users.accountByEmail(mapped.email);
    user = account && (await ctx.stores.users.get(orgId, account.id));
    // A domain claim is no proof of owning the domain: an account of other organizations is never taken over.
    if (account && !user) {
      const check = 'the e-mail belongs to an account outside the organization: an owner must invite it first';
      return { refused: { status: 403, check } };
    }
    if (account && !(await governs(ctx, account, user))) {
      const check =
        "the e-mail belongs to an account that has not accepted the organization's invitation: it must accept it first";
      return { refused: { status: 403, check } };
    }
    // Linking a member by e-mail trusts the address: an OpenID provider must say it verified it.
    if (user && profile.emailVerified === undefined && config.protocol === 'oidc') {
      const check = 'the identity provider does not say it verified the e-mail address (email_verified)';
      return { refused: { status: 403, check } };
    }
    if (!user) {
      const userId = ctx.ids('user');
      // The identity provider vouches for the e-mail of a new account.
      await ctx.stores.users.insertAccount(userId, mapped.email, true, now);
      await ctx.stores.users.insertMembership({
        orgId,
        userId,
        email: mapped.email,
        name: mapped.name,
        role: config.defaultRole,
        status: 'active',
        now,
      });
      user = (await ctx.stores.users.get(orgId, userId)) as User;
      provisioned = true;
    }
  }
  if (user.status === 'suspended') return { refused: { status: 403, check: 'the user is suspended' } };
  if (user.status === 'pending') {
    await ctx.stores.users.markEmailVerified(user.id, now);
    await ctx.stores.invitations.acceptForUser(orgId, user.id, now);
  }
  // What the user had, the mapped fields over it, within the 50 keys metadata may hold.
  const metadata = Object.fromEntries(
    Object.entries({ ...user.metadata, ...mapped.metadata }).slice(0, MAX_METADATA_KEYS),
  );
  await ctx.stores.users.update(orgId, {
    ...user,
    name: mapped.name ?? user.name,
    metadata,
    status: 'active',
    updatedAt: now,
  });
  await ctx.stores.ssoSignIn.link(orgId, profile.subject, user.id, now);
  if (provisioned) {
    await audit(
      ctx,
      orgId,
      { type: 'system', id: `sso:${config.protocol}` },
      'user.provisioned',
      { type: 'user', id: user.id },
      { email: mapped.email, role: config.defaultRole, protocol: config.protocol },
    );
  }
  return { userId: user.id, provisioned };
}
