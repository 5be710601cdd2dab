import type { BaseCtx } from '../context.js';
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
 * The single sign-on an e-mail belongs to (contract §9 routing): the enabled, usable configuration whose domains hold
 * its domain — and only for a person it governs: a member of that organization, or someone with no account yet. A
 * domain claim is not proof of owning the domain, so an account that exists only in other organizations keeps signing
 * in as it does, and is never handed to this organization's identity provider.
 */
export function ssoForEmail(ctx: BaseCtx, email: string): StoredSso | undefined {
  const domain = domainOf(email);
  const sso = domain ? ctx.stores.sso.enabledForDomain(domain) : undefined;
  if (!sso || !isUsable(sso)) return undefined;
  const account = ctx.stores.users.accountByEmail(email.trim());
  if (account && !ctx.stores.users.get(sso.organizationId, account.id)) return undefined;
  return sso;
}

/**
 * Whether a password may sign this person in (contract §9 enforcement): not while they are a member of an
 * organization whose enabled single sign-on claims their e-mail's domain — except for that organization's owners
 * (break-glass). The message points to single sign-on; undefined when the password may be used.
 */
export function passwordRefusal(ctx: BaseCtx, email: string): string | undefined {
  const sso = ssoForEmail(ctx, email);
  const account = sso && ctx.stores.users.accountByEmail(email.trim());
  if (!sso || !account) return undefined;
  if (ctx.stores.users.get(sso.organizationId, account.id)?.role === 'owner') return undefined;
  return 'Your organization signs you in through its identity provider: continue with your e-mail only, without a password.';
}
