import {
  type BatchOutcome,
  emailSchema,
  type HashConfig,
  type ImportedHash,
  type User,
  type UserBatch,
  type UserBatchItem,
  type UserBatchReply,
  type UserBatchResult,
  userBatchItemSchema,
} from '../../contract/users.js';
import { acceptImportedHash } from '../auth/imported-hashes.js';
import type { Ctx } from '../context.js';
import { conflict, detailsOf, errorParts, invalidField, invalidFields, PlatformError } from '../errors.js';
import type { Account } from '../store/users.js';
import { guardOwnerRole, insertPendingUser, refuseUnknownTeams } from './invitations.js';
import { guardLastOwner, guardOwner, guardSuspension, mergeMetadata, suspendMember } from './users.js';

type Mode = NonNullable<UserBatch['mode']>;

/** What one batch shares between its items: its options, the e-mails seen so far, the teams resolved so far. */
interface Run {
  mode: Mode;
  invite: boolean;
  /** Lower-case e-mail → the index of the item that named it first. */
  seen: Map<string, number>;
  /** A team id or name as given → the team's id (undefined: no such team). */
  teams: Map<string, string | undefined>;
  /** The Firebase project's scrypt parameters, for the items whose hash is Firebase's. */
  hashConfig: HashConfig | undefined;
  /** Set the items' hashes on members that have a password already (`upsert`). */
  replacePasswords: boolean;
}

/** Thrown to roll a dry run back once its outcomes are known. */
const DRY_RUN = Symbol('dry run');
/** Thrown when an item failed after writing: the batch starts again, each item in a savepoint of its own. */
const ISOLATE = Symbol('isolate the items');

/**
 * `POST /organizations/{orgId}/users/batch` (docs/api.md, "Decisions"): 1–1,000 independent items, each checked and applied on its
 * own, in one transaction for the batch; one bad item undoes nothing of the others. Items are applied one after the
 * other; one that fails does so before it writes anything (its checks come first), and then fails alone. Should one
 * ever fail having written, the batch is rolled back and run again with a savepoint per item — the slow way (SQLite
 * copies each page an item touches, and FTS5 flushes at each savepoint), kept for what the checks did not foresee.
 * `create` makes pending users — invitations mailed with `invite` — or, when an item brings its password hash
 * (docs/api.md, "Imported passwords"), active ones who sign in with it; it leaves a member that already matches
 * `unchanged`, or fails it with `409` when it differs; `upsert` updates name, role, teams (replaced), metadata
 * (merged), a password (see `passwordToSet`) and suspends. A dry run applies everything and rolls it back, so its
 * outcomes are exactly the real ones. One event per changed user.
 */
export async function batchUsers(ctx: Ctx, orgId: string, input: UserBatch): Promise<UserBatchReply> {
  // The items one after the other (each sees what the ones before it wrote), in the transaction `ctx` runs in.
  const apply = (isolated: boolean) => (ctx: Ctx) => {
    const run: Run = {
      mode: input.mode ?? 'create',
      invite: input.invite ?? false,
      seen: new Map(),
      teams: new Map(),
      hashConfig: input.hashConfig,
      replacePasswords: input.replacePasswords ?? false,
    };
    return ctx.stores.users.deferSearch(async () => {
      const results: UserBatchResult[] = [];
      for (const [index, raw] of input.users.entries()) {
        results.push(await oneItem(ctx, orgId, run, raw, index, isolated));
      }
      return results;
    });
  };
  const inTransaction = async (fn: (ctx: Ctx) => Promise<UserBatchResult[]>): Promise<UserBatchResult[]> => {
    if (!input.dryRun) return ctx.tx(fn);
    let results: UserBatchResult[] = [];
    try {
      await ctx.tx(async (ctx) => {
        results = await fn(ctx);
        throw DRY_RUN;
      });
    } catch (err) {
      if (err !== DRY_RUN) throw err;
    }
    // Nobody was created: no id to give.
    return results.map((r) => (r.outcome === 'created' ? { ...r, userId: null } : r));
  };
  let results: UserBatchResult[];
  try {
    results = await inTransaction(apply(false));
  } catch (err) {
    if (err !== ISOLATE) throw err;
    results = await inTransaction(apply(true));
  }
  const counts: Record<BatchOutcome, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  for (const r of results) counts[r.outcome] += 1;
  return { results, summary: counts };
}

/** One item, parsed and applied (in a savepoint when `isolated`); a coded error fails it alone. */
async function oneItem(
  ctx: Ctx,
  orgId: string,
  run: Run,
  raw: unknown,
  index: number,
  isolated: boolean,
): Promise<UserBatchResult> {
  const object = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
  const email = object ? (raw as Record<string, unknown>).email : undefined;
  const given = typeof email === 'string' ? email.trim() : '';
  const written = ctx.writes();
  try {
    if (!object) throw invalidField('(item)', 'expected an object such as {"email": "ada@example.com"}');
    const parsed = userBatchItemSchema.safeParse(raw);
    if (!parsed.success) throw invalidFields(detailsOf(parsed.error));
    const item = parsed.data;
    const key = item.email.toLowerCase();
    const first = run.seen.get(key);
    if (first !== undefined) throw invalidField('email', `the same e-mail as item ${first} of this batch`);
    run.seen.set(key, index);
    const done = isolated
      ? await ctx.tx((ctx) => applyItem(ctx, orgId, run, item))
      : await applyItem(ctx, orgId, run, item);
    return { index, email: done.email, outcome: done.outcome, userId: done.userId, error: null };
  } catch (err) {
    if (!(err instanceof PlatformError)) throw err;
    if (!isolated && ctx.writes() !== written) throw ISOLATE;
    return { index, email: given, outcome: 'failed', userId: null, error: errorParts(err) };
  }
}

type Applied = { outcome: Exclude<BatchOutcome, 'failed'>; userId: string; email: string };

async function applyItem(ctx: Ctx, orgId: string, run: Run, item: UserBatchItem): Promise<Applied> {
  const teams = item.teams === undefined ? undefined : await resolveTeams(ctx, orgId, run, item.teams);
  const hash = item.passwordHash === undefined ? undefined : importedHash(item.passwordHash, run.hashConfig);
  const account = await ctx.stores.users.accountByEmail(item.email);
  const user = account && (await ctx.stores.users.get(orgId, account.id));
  if (!user) return addUser(ctx, orgId, run, item, account, teams, hash);
  return reviseUser(ctx, orgId, run, item, account, user, teams, hash);
}

/** The item's hash in the form it is stored in; `422` naming `passwordHash` when it is malformed or too costly. */
function importedHash(given: ImportedHash, config: HashConfig | undefined): string {
  const accepted = acceptImportedHash(given, config);
  if (!accepted.ok) throw invalidField('passwordHash', accepted.message);
  return accepted.stored;
}

/**
 * A new member. With a hash, a new account comes in `active`, signing in with the password it had (no invitation);
 * otherwise — or when the account exists already, in other organizations, whose password is its own — `pending`, as
 * any user added. `status: "suspended"` then suspends it (an invitation is not mailed).
 */
async function addUser(
  ctx: Ctx,
  orgId: string,
  run: Run,
  item: UserBatchItem,
  account: Account | undefined,
  teams: string[] | undefined,
  hash: string | undefined,
): Promise<Applied> {
  // A new account needs a deliverable address; an existing one matches whatever form it was made with.
  if (!account && !emailSchema.safeParse(item.email).success) throw invalidField('email', 'invalid e-mail address');
  const role = item.role ?? 'member';
  guardOwnerRole(ctx, role);
  const metadata = mergeMetadata({}, item.metadata);
  const suspended = item.status === 'suspended';
  let userId: string;
  let email: string;
  if (hash !== undefined && !account) {
    const now = ctx.now();
    [userId, email] = [ctx.ids('user'), item.email];
    await ctx.stores.users.insertAccount(userId, email, item.emailVerified ?? false, now, {
      passwordHash: hash,
      importedBy: orgId,
    });
    const name = item.name ?? null;
    await ctx.stores.users.insertMembership({ orgId, userId, email, name, role, status: 'active', metadata, now });
    for (const teamId of teams ?? []) await ctx.stores.teams.addMember(orgId, teamId, userId, now);
    const data = {
      email,
      role,
      teams: teams ?? [],
      via: 'import',
      batch: true,
      ...(suspended && { status: 'suspended' }),
    };
    await ctx.emit('user.provisioned', { type: 'user', id: userId }, data);
  } else {
    const pending = { email: item.email, name: item.name ?? null, role, teams: teams ?? [], metadata };
    const mail = run.invite && !suspended;
    const opts = { mail, batch: true, emailVerified: account ? undefined : item.emailVerified, suspended };
    ({ userId, email } = await insertPendingUser(ctx, orgId, pending, account, opts));
  }
  // One event per user: the one above says it came in suspended.
  if (suspended) await suspendMember(ctx, (await ctx.stores.users.get(orgId, userId)) as User, false);
  return { outcome: 'created', userId, email };
}

/**
 * The hash to set on a member's account, or undefined when the item's is not to be set (docs/api.md, "Imported
 * passwords"): only on an account without a password, unless the batch says `replacePasswords`; never on an account
 * that belongs to other organizations too (its password is not this organization's to choose) — asked to replace one,
 * the item fails `409`.
 */
async function passwordToSet(ctx: Ctx, run: Run, account: Account, hash: string): Promise<string | undefined> {
  if (account.passwordHash === hash) return undefined;
  if (account.passwordHash !== null && !(run.mode === 'upsert' && run.replacePasswords)) return undefined;
  if ((await ctx.stores.users.membershipCount(account.id)) === 1) return hash;
  if (account.passwordHash === null) return undefined;
  throw conflict(
    `${account.email} is a member of other organizations too: their password is not an import's to replace`,
  );
}

/**
 * A member already: `unchanged` when the item asks nothing new, `409` in `create` when it does, else updated. A pending
 * member given a password becomes `active` (their invitation revoked); `status: "suspended"` suspends as
 * `POST …/suspend` does, after the other changes.
 */
async function reviseUser(
  ctx: Ctx,
  orgId: string,
  run: Run,
  item: UserBatchItem,
  account: Account,
  user: User,
  teams: string[] | undefined,
  hash: string | undefined,
): Promise<Applied> {
  const current = teams === undefined ? undefined : await ctx.stores.teams.teamIdsOf(orgId, user.id);
  const password = hash === undefined ? undefined : await passwordToSet(ctx, run, account, hash);
  const suspend = item.status === 'suspended' && user.status !== 'suspended';
  const activate = password !== undefined && user.status === 'pending';
  const next: User = {
    ...user,
    name: item.name ?? user.name,
    role: item.role ?? user.role,
    status: activate ? 'active' : user.status,
    metadata: mergeMetadata(user.metadata, item.metadata),
  };
  const fields = [
    next.name !== user.name && 'name',
    next.role !== user.role && 'role',
    !sameMetadata(next.metadata, user.metadata) && 'metadata',
    teams !== undefined && !sameSet(teams, current ?? []) && 'teams',
    password !== undefined && 'password',
  ].filter((f): f is string => f !== false);
  if (fields.length === 0 && !suspend) return { outcome: 'unchanged', userId: user.id, email: user.email };
  if (run.mode === 'create') {
    const differs = [...fields, ...(suspend ? ['status'] : [])].join(', ');
    throw conflict(`${user.email} is already a member with another ${differs}: upsert to update it`);
  }
  guardOwner(ctx, user, next.role === 'owner' && user.role !== 'owner');
  if (next.role !== 'owner') await guardLastOwner(ctx, user, 'demoted');
  if (suspend) await guardSuspension(ctx, user);
  const now = ctx.now();
  if (fields.length > 0) {
    await ctx.stores.users.update(orgId, { ...next, updatedAt: now });
    const moved = teams === undefined ? undefined : await replaceTeams(ctx, orgId, user.id, current ?? [], teams, now);
    if (password !== undefined) await ctx.stores.users.setPassword(user.id, password, now, orgId);
    if (activate) await ctx.stores.invitations.revokeForUser(orgId, user.id, now);
    else if (user.status === 'pending') {
      // Their invitation (a resend mails it) says what they are now.
      const nowTeams = teams ?? (await ctx.stores.teams.teamIdsOf(orgId, user.id));
      await ctx.stores.invitations.reviseForUser(orgId, user.id, { name: next.name, role: next.role, teams: nowTeams });
    }
    const status = suspend ? 'suspended' : next.status;
    await ctx.emit(
      'user.updated',
      { type: 'user', id: user.id },
      {
        fields: suspend ? [...fields, 'status'] : fields,
        batch: true,
        ...(next.role !== user.role && { role: { from: user.role, to: next.role } }),
        ...(status !== user.status && { status: { from: user.status, to: status } }),
        ...(moved && { teams: moved }),
      },
    );
  }
  // One event per user: `user.suspended` when that is all that changed, else the `user.updated` above says so.
  if (suspend) await suspendMember(ctx, { ...next, updatedAt: now }, fields.length === 0);
  return { outcome: 'updated', userId: user.id, email: user.email };
}

/** Team ids or names as the organization's team ids (deduplicated); `422` naming the ones it does not have. */
async function resolveTeams(ctx: Ctx, orgId: string, run: Run, given: readonly string[]): Promise<string[]> {
  const ids: (string | undefined)[] = [];
  for (const t of given) {
    if (!run.teams.has(t)) {
      const team = (await ctx.stores.teams.get(orgId, t)) ?? (await ctx.stores.teams.byName(orgId, t));
      run.teams.set(t, team?.id);
    }
    ids.push(run.teams.get(t));
  }
  refuseUnknownTeams(given.filter((_, i) => ids[i] === undefined));
  return [...new Set(ids as string[])];
}

/** Puts the user in exactly `wanted`; what was added and removed. */
async function replaceTeams(ctx: Ctx, orgId: string, userId: string, current: string[], wanted: string[], now: string) {
  const added = wanted.filter((t) => !current.includes(t));
  const removed = current.filter((t) => !wanted.includes(t));
  for (const teamId of removed) await ctx.stores.teams.removeMember(orgId, teamId, userId);
  for (const teamId of added) await ctx.stores.teams.addMember(orgId, teamId, userId, now);
  return { added, removed };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function sameMetadata(a: User['metadata'], b: User['metadata']): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && Object.is(a[k], b[k]));
}
