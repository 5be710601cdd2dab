// The acting organization of an authenticated request, and the context its operation runs with (pipeline.ts).
import { actIn, actingOrgId } from '../auth/credentials.js';
import type { BaseCtx, Credential, Ctx, Principal } from '../context.js';
import { PlatformError } from '../errors.js';
import { type Awaitable, andThen } from '../store/sql.js';

/**
 * Chooses the organization a request acts in: `X-Org-Id` when sent (`403` if the credential may not act there),
 * else the organization in the path (`404` if it may not), else the credential's own.
 */
export function principalFor(
  base: BaseCtx,
  credential: Credential,
  header: string | undefined,
  pathOrg: unknown,
): Awaitable<Principal> {
  const orgId = actingOrgId(credential, header, pathOrg);
  return andThen(actIn(base, credential, orgId), (principal) => principal ?? refusal(credential, orgId, header));
}

/** Why a credential may not act in `orgId`: the error to answer with. */
function refusal(credential: Credential, orgId: string, header: string | undefined): never {
  if (orgId === credential.homeOrgId) {
    throw new PlatformError('authentication_failed', 'the credential belongs to a user who is no longer active');
  }
  if (header !== undefined) {
    throw new PlatformError('insufficient_permissions', `this credential cannot act in organization ${orgId}`);
  }
  throw new PlatformError('not_found', 'organization not found');
}

/**
 * The context of an operation by `principal`, written out field by field (a spread of the base would cost a request
 * more than a read of the database).
 */
export function withPrincipal(base: BaseCtx, principal: Principal): Ctx {
  const ctx: Required<Ctx> = {
    sql: base.sql,
    stores: base.stores,
    clock: base.clock,
    ids: base.ids,
    mode: base.mode,
    cursors: base.cursors,
    requestId: base.requestId,
    publicUrl: base.publicUrl,
    auth: base.auth,
    txt: base.txt,
    streams: base.streams,
    now: base.now,
    // The base's `tx` gives `fn` a copy of the context it is called on, with the transaction's stores: here a `Ctx`.
    tx: base.tx as Ctx['tx'],
    writes: base.writes,
    principal,
    emit,
  };
  return ctx;
}

/**
 * Records an audit event by the context's principal. It writes through `this.stores`: called on the context a
 * transaction gives (a copy of this one with the transaction's stores), the event is written in that transaction.
 */
async function emit(
  this: Ctx,
  type: string,
  target: { type: string; id: string } | null,
  data: Record<string, unknown> = {},
  orgId: string = this.principal.orgId,
): Promise<void> {
  const { principal } = this;
  await this.stores.events.insert({
    id: this.ids('event'),
    type,
    organizationId: orgId,
    actor:
      principal.type === 'user'
        ? { type: 'user', id: principal.userId }
        : { type: principal.type, id: principal.keyId as string },
    target,
    requestId: this.requestId,
    createdAt: this.now(),
    data,
  });
}
