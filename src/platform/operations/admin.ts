import type { Domain } from '../../contract/domains.js';
import type { BaseCtx } from '../context.js';
import { PlatformError } from '../errors.js';
import type { Delivery, Mail } from '../store/outbox.js';
import { type BootstrapOptions, type BootstrapResult, bootstrap } from './bootstrap.js';
import { vouchForDomain } from './domains.js';
import { type ForgottenSecrets, forgetSealedSecrets } from './secrets.js';

/** An account of the platform, as `plat local init` reports it. */
export interface AccountReport {
  userId: string;
  /** The organizations it is a member of, oldest first. */
  organizationIds: string[];
}

/**
 * What the operator of an instance does to it directly, with no API credential: `plat local` over the database
 * (docs/cli.md, "plat local"). Each is an operation like the API's — every write in a transaction, with an event
 * whose actor is `{ type: "system", id: <what ran it> }` — and nothing of the stores or SQL leaves the platform.
 */
export interface AdminOperations {
  /** Makes a first organization, its owner and the owner's key (`plat local init`). */
  init(opts?: BootstrapOptions): Promise<BootstrapResult>;
  /** Whether the platform holds an organization: an empty, migrated database is not yet a platform. */
  hasOrganization(): Promise<boolean>;
  /** The account with this e-mail (case-insensitive), or undefined. */
  account(email: string): Promise<AccountReport | undefined>;
  /** Sets an account's sign-in password (already hashed), with an event in each of its organizations; `404` if none. */
  setPassword(email: string, passwordHash: string): Promise<AccountReport>;
  /** The embedded mailbox, newest first; with `delivery`, where each mail stands with the SMTP sender. */
  mailbox(opts: { to?: string; limit?: number; delivery?: boolean }): Promise<(Mail & { delivery?: Delivery })[]>;
  /** Discards every sealed secret, when the key they were sealed with is lost (`plat local forget-secrets`). */
  forgetSecrets(): Promise<ForgottenSecrets>;
  /**
   * Vouches for a domain of an organization (by id or slug) without DNS (`plat local domains verify`): its claim,
   * made if need be, becomes verified; `409` when another organization verified it, `404` for no organization.
   */
  verifyDomain(org: string, domain: string): Promise<Domain>;
}

/** The administrative operations over a platform's base context. */
export function adminOperations(base: () => BaseCtx): AdminOperations {
  const account = async (ctx: BaseCtx, email: string): Promise<AccountReport | undefined> => {
    const found = await ctx.stores.users.accountByEmail(email);
    if (!found) return undefined;
    const organizations = await ctx.stores.organizations.listForUser(found.id);
    return { userId: found.id, organizationIds: organizations.map((o) => o.id) };
  };
  return {
    init: (opts) => bootstrap(base(), opts),
    hasOrganization: () => base().stores.organizations.any(),
    account: (email) => account(base(), email),
    setPassword: (email, passwordHash) =>
      base().tx(async (ctx) => {
        const found = await account(ctx, email);
        if (!found) throw new PlatformError('not_found', `no account ${email}`);
        const now = ctx.now();
        await ctx.stores.users.setPassword(found.userId, passwordHash, now);
        for (const organizationId of found.organizationIds) {
          await ctx.stores.events.insert({
            id: ctx.ids('event'),
            type: 'user.password_set',
            organizationId,
            actor: { type: 'system', id: 'plat local' },
            target: { type: 'user', id: found.userId },
            requestId: null,
            createdAt: now,
            data: {},
          });
        }
        return found;
      }),
    mailbox: (opts) => {
      const ctx = base();
      const which = { to: opts.to, limit: opts.limit };
      return opts.delivery ? ctx.stores.outbox.listWithDelivery(which, ctx.now()) : ctx.stores.outbox.list(which);
    },
    forgetSecrets: () => forgetSealedSecrets(base()),
    verifyDomain: (org, domain) => vouchForDomain(base(), org, domain),
  };
}
