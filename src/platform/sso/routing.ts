import type { BaseCtx } from '../context.js';
import type { StoredSso } from '../store/sso.js';

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
 * The single sign-on an e-mail belongs to (contract §9 routing): the enabled configuration whose domains hold its
 * domain, if any.
 */
export function ssoForEmail(ctx: BaseCtx, email: string): StoredSso | undefined {
  const domain = domainOf(email);
  return domain ? ctx.stores.sso.enabledForDomain(domain) : undefined;
}

/**
 * Whether a password may sign this person in (contract §9 enforcement): not while their e-mail's domain belongs to an
 * organization whose single sign-on is enabled — except for that organization's owners (break-glass). The message
 * points to single sign-on; undefined when the password may be used.
 */
export function passwordRefusal(ctx: BaseCtx, email: string): string | undefined {
  const sso = ssoForEmail(ctx, email);
  if (!sso) return undefined;
  const account = ctx.stores.users.accountByEmail(email.trim());
  if (account && ctx.stores.users.get(sso.organizationId, account.id)?.role === 'owner') return undefined;
  return 'Your organization signs you in through its identity provider: continue with your e-mail only, without a password.';
}
