import type { Organization } from '../../contract/organizations.js';
import type { BaseCtx } from '../context.js';
import type { TicketState } from '../store/auth.js';
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from './passwords.js';
import { hashOpaque, newOpaqueSecret } from './secrets.js';
import { lockedFor, recordFailure, recordSuccess, throttleKeys } from './throttle.js';

/** The outcome of checking an e-mail and password. Failures never say whether the e-mail exists. */
export type PasswordCheck =
  | { ok: true; userId: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfter: number };

/** The one message every wrong e-mail or password gets. */
export const INVALID_CREDENTIALS = 'Incorrect e-mail or password.';

/**
 * Checks a password, slowed down per account and per client address (see throttle.ts). An unknown e-mail, or an
 * account without a password yet, costs one dummy verification, so the answer's timing is that of a wrong password.
 * A password that matches a hash of another kind (imported, docs/migrate.md) or cost is hashed again the platform's
 * way, replacing it.
 */
export async function checkPassword(
  ctx: BaseCtx,
  email: string,
  password: string,
  address: string | null,
): Promise<PasswordCheck> {
  const keys = throttleKeys(email, address);
  const retryAfter = await lockedFor(ctx, keys);
  if (retryAfter > 0) return { ok: false, reason: 'locked', retryAfter };
  const account = email.length <= 254 ? await ctx.stores.users.accountByEmail(email.trim()) : undefined;
  const ok = account?.passwordHash
    ? await verifyPassword(password, account.passwordHash)
    : await verifyAgainstDummy(password);
  if (!ok || !account) {
    await recordFailure(ctx, keys);
    return { ok: false, reason: 'invalid' };
  }
  await recordSuccess(ctx, keys);
  const stored = account.passwordHash as string;
  if (needsRehash(stored, account.passwordImportedBy !== null)) {
    const fresh = await hashPassword(password);
    // Unless the password changed meanwhile (then the new one stands).
    await ctx.tx((ctx) => ctx.stores.users.rehashPassword(account.id, stored, fresh, ctx.now()));
  }
  return { ok: true, userId: account.id };
}

/** The organizations where the user is an active member, oldest first. */
export async function activeOrganizations(ctx: BaseCtx, userId: string): Promise<Organization[]> {
  const active: Organization[] = [];
  for (const org of await ctx.stores.organizations.listForUser(userId)) {
    if ((await ctx.stores.users.get(org.id, userId))?.status === 'active') active.push(org);
  }
  return active;
}

const TICKET_TTL_MS = 5 * 60_000;

/**
 * A single-use proof of how far a sign-in got (5 minutes), carried by the next form: the second factor, enrolment, the
 * organization picker (store/auth.ts, `TicketState`).
 */
export async function issueLoginTicket(ctx: BaseCtx, state: TicketState): Promise<string> {
  const { secret, hash } = newOpaqueSecret();
  const now = ctx.clock().getTime();
  await ctx.stores.auth.insertLoginTicket(
    hash,
    state,
    new Date(now).toISOString(),
    new Date(now + TICKET_TTL_MS).toISOString(),
  );
  return secret;
}

/** Where the sign-in a ticket carries stands, using the ticket up; undefined when unknown, used or expired. */
export async function redeemLoginTicket(ctx: BaseCtx, ticket: string): Promise<TicketState | undefined> {
  return ctx.stores.auth.redeemLoginTicket(hashOpaque(ticket), ctx.now());
}
