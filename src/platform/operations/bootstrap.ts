import { nameSchema } from '../../contract/common.js';
import { passwordProblem } from '../../contract/passwords.js';
import { displayParts, generateApiKey, hashSecret } from '../auth/api-keys.js';
import { GENERATED_PASSWORD_COST, generatePassword, hashPasswordSync } from '../auth/passwords.js';
import type { BaseCtx } from '../context.js';
import { invalidField } from '../errors.js';
import { uniqueSlug } from './slug.js';

export interface BootstrapOptions {
  orgName?: string;
  email?: string;
  name?: string;
  /** The owner's sign-in password (`plat local init --password`); generated when absent. */
  password?: string;
  /**
   * Only on a platform that holds no organization yet, checked in the transaction that makes one: of two first runs
   * at once (two `plat local init` on one new database), one makes it and the other gets `AlreadyMade`.
   */
  onlyFirst?: boolean;
}

/** A bootstrap with `onlyFirst` on a platform that another one made meanwhile. */
export class AlreadyMade extends Error {
  override readonly name = 'AlreadyMade';
  constructor() {
    super('the platform holds an organization already');
  }
}
export interface BootstrapResult {
  organizationId: string;
  userId: string;
  apiKey: string;
  /** The generated password, to show once; null when one was given or the account already had one. */
  password: string | null;
}

/**
 * Creates a first organization (on `enterprise`), its owner (active, verified) and a multi-organization API key of
 * that owner — what `plat local init` runs on a new embedded platform. One transaction: all or nothing.
 */
export async function bootstrap(base: BaseCtx, opts: BootstrapOptions = {}): Promise<BootstrapResult> {
  const email = opts.email ?? 'admin@localhost';
  const named = nameSchema.safeParse(opts.orgName ?? 'Local');
  if (!named.success) throw invalidField('orgName', named.error.issues[0]?.message ?? 'invalid name');
  const orgName = named.data;
  const problem = opts.password === undefined ? undefined : passwordProblem(opts.password);
  if (problem) throw invalidField('password', problem);
  const hadPassword = Boolean((await base.stores.users.accountByEmail(email))?.passwordHash);
  const generated = opts.password === undefined && !hadPassword ? generatePassword() : null;
  const passwordHash =
    opts.password !== undefined
      ? hashPasswordSync(opts.password)
      : generated && hashPasswordSync(generated, GENERATED_PASSWORD_COST);
  return base.tx(async (base) => {
    const { stores } = base;
    // Under the transaction's write lock (SQLite's single writer, PostgreSQL's advisory lock): no other bootstrap
    // can be between this check and the insert.
    if (opts.onlyFirst && (await stores.organizations.any())) throw new AlreadyMade();
    const now = base.now();
    const organizationId = base.ids('organization');
    await stores.organizations.insert({
      id: organizationId,
      name: orgName,
      slug: await uniqueSlug(orgName, 'org', (s) => stores.organizations.slugTaken(s)),
      plan: 'enterprise',
      mfa: 'optional',
      createdAt: now,
      updatedAt: now,
    });
    const existing = await stores.users.accountByEmail(email);
    const userId = existing?.id ?? base.ids('user');
    if (!existing) await stores.users.insertAccount(userId, email, true, now);
    if (passwordHash) await stores.users.setPassword(userId, passwordHash, now);
    await stores.users.insertMembership({
      orgId: organizationId,
      userId,
      email: existing?.email ?? email,
      name: opts.name ?? 'Admin',
      role: 'owner',
      status: 'active',
      now,
    });
    const environment = base.mode === 'live' ? 'live' : 'test';
    const apiKey = generateApiKey(environment);
    const keyId = base.ids('apiKey');
    await stores.apiKeys.insert({
      id: keyId,
      name: 'plat local',
      organizationId,
      userId,
      environment,
      ...displayParts(apiKey),
      secretHash: hashSecret(apiKey),
      projectIds: null,
      permissions: null,
      multiOrganization: true,
      createdAt: now,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    const actor = { type: 'system', id: 'bootstrap' };
    await stores.events.insert({
      id: base.ids('event'),
      type: 'organization.created',
      organizationId,
      actor: actor as { type: 'system'; id: string },
      target: { type: 'organization', id: organizationId },
      requestId: null,
      createdAt: now,
      data: { bootstrap: true },
    });
    return { organizationId, userId, apiKey, password: generated };
  });
}
