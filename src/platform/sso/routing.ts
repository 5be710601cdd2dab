import type { User } from '../../contract/users.js';
import type { BaseCtx } from '../context.js';
import { governs } from '../operations/sso-provision.js';
import { isUsable, type StoredSso } from '../store/sso.js';

/** The part of an e-mail address after its last `@`, lower-case; empty when there is none. */
export function domainOf(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0
    ? ''
    : email
        .slice(at + 1)
        .trim()
        .toLowerCase();
}

/**
 * The single sign-on an e-mail belongs to (docs/sso.md routing): the enabled, usable configuration whose domains hold
 * its domain — only for a person it governs (see `governs`: the organization's own people, or someone with no account
 * yet), and only when the sign-in asks for no other organization (`org`). A domain claim is not proof of owning the
 * domain, so an account of other organizations keeps signing in as it does, never handed to this identity provider.
 * With it, the organization's member the e-mail is (undefined: no account yet).
 */
async function governing(
  ctx: BaseCtx,
  email: string,
  org: string | null | undefined,
): Promise<{ sso: StoredSso; member: User | undefined } | undefined> {
  // No address is longer (RFC 5321): what a stranger typed goes no further.
  if (email.length > 254) return undefined;
  const domain = domainOf(email);
  const sso = domain ? await ctx.stores.sso.enabledForDomain(domain) : undefined;
  if (!sso || !isUsable(sso)) return undefined;
  if (org != null && org !== sso.organizationId) return undefined;
  const account = await ctx.stores.users.accountByEmail(email.trim());
  if (!account) return { sso, member: undefined };
  const member = await ctx.stores.users.get(sso.organizationId, account.id);
  return (await governs(ctx, account, member)) ? { sso, member } : undefined;
}

/** The single sign-on that signs this e-mail in (see `governing`), if any. */
export async function ssoForEmail(ctx: BaseCtx, email: string, org?: string | null): Promise<StoredSso | undefined> {
  return (await governing(ctx, email, org))?.sso;
}

/**
 * Whether a password may sign this person in (docs/sso.md enforcement): not while the single sign-on of their e-mail
 * governs them (see `governing`) — except for that organization's owners (break-glass). The message points to single
 * sign-on; undefined when the password may be used (someone with no account has no password to refuse).
 */
export async function passwordRefusal(ctx: BaseCtx, email: string, org?: string | null): Promise<string | undefined> {
  const member = (await governing(ctx, email, org))?.member;
  if (!member || member.role === 'owner') return undefined;
  return 'Your organization signs you in through its identity provider: continue with your e-mail only, without a password.';
}
