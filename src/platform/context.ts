import type { Amr } from '../contract/mfa.js';
import type { Plan } from '../contract/organizations.js';
import type { OrgRole, Permission } from '../contract/permissions.js';
import type { AuthSettings } from './auth/settings.js';
import type { Clock, IdFactory } from './clock.js';
import type { TxtLookup } from './dns.js';
import type { Standing } from './store/api-keys.js';
import type { Stores } from './store/index.js';
import type { CursorCodec } from './store/paging.js';
import type { SqlDb } from './store/sql.js';

/**
 * What a listener passes along with a request: node-server's bindings, whose `incoming.socket.remoteAddress` is the
 * peer's address (failed authentication is limited per address). Absent in-process: one local caller.
 */
export type FetchBindings = { incoming?: { socket?: { remoteAddress?: string } } };

/** `live` instances issue and accept only live keys, `sandbox` instances only test keys. */
export type Mode = 'live' | 'sandbox';

/** What event streams run by (operations/event-stream.ts): the platform's closing, how often they look for events. */
export interface StreamSettings {
  /** Aborted when the platform closes: every stream ends. */
  signal: AbortSignal;
  pollMs: number;
}

/** What every request can use, authenticated or not. */
export interface BaseCtx {
  /** The database, for what no store answers (transactions, the signing keys' cache). */
  sql: SqlDb;
  /** Every store, running outside any transaction or (in the context `tx` gives) inside it. */
  stores: Stores;
  clock: Clock;
  ids: IdFactory;
  mode: Mode;
  cursors: CursorCodec;
  requestId: string;
  /** The instance's public origin (links in e-mails), without `/v2`. */
  publicUrl: string;
  /** Sign-in settings: token lifetimes, OAuth clients. */
  auth: AuthSettings;
  /** Looks a name's TXT records up: domain verification (dns.ts). */
  txt: TxtLookup;
  /** What event streams run by: the platform's closing, how often they look for new events. */
  streams: StreamSettings;
  /** Now, as the API writes timestamps. */
  now(): string;
  /**
   * Runs `fn` in a transaction holding the write lock from its start (every read-then-write goes through here), with a
   * context whose stores run in it; inside one, in a savepoint undone alone when `fn` throws. `fn` must use the
   * context it is given: on SQLite, a query on the outer one waits for the transaction to end, which never comes.
   */
  tx<T>(fn: (ctx: this) => Promise<T>): Promise<T>;
  /** How many rows this database handle has written so far: whether a step wrote anything. */
  writes(): number;
}

/** Who a credential is, before an organization is chosen. */
export interface Credential {
  /** `scim_token`: an identity provider's SCIM token, acting in its organization's SCIM endpoints only. */
  type: 'api_key' | 'user' | 'scim_token';
  userId: string;
  /** The organization of the key, or of the token's `org` claim. */
  homeOrgId: string;
  /** Whether it may act in the owner's other organizations (user tokens, multi-organization keys). */
  multiOrg: boolean;
  /** The key's `permissions` or the token's scopes; null when unrestricted. */
  grants: ReadonlySet<Permission> | null;
  /** The key's `projectIds` restriction; null when unrestricted. */
  projectIds: readonly string[] | null;
  keyId: string | null;
  sessionId: string | null;
  /** When the session of a user token began (checked against organizations' session cutoffs); null for keys. */
  sessionCreatedAt: string | null;
  expiresAt: string | null;
  /** How a user token's session was signed in (RFC 8176); absent for keys. */
  amr?: readonly Amr[];
  /**
   * The holder's role and status in the credential's own organization, and its plan, when they were read with the
   * credential (null: read, and not a member); undefined when not read (a user's token: `actIn` reads them).
   */
  homeStanding?: Standing | null;
}

/** A credential acting in one organization, with the role it holds there. */
export interface Principal extends Credential {
  orgId: string;
  role: OrgRole;
  /** The acting organization's plan: its rate limit (read with the role, on every request). */
  plan: Plan;
}

/** The context of an authenticated operation. */
export interface Ctx extends BaseCtx {
  principal: Principal;
  /**
   * Records an audit event through this context's stores, so in its transaction (in the acting organization unless
   * `orgId` is given). Called as a method: it uses `this`.
   */
  emit(
    type: string,
    target: { type: string; id: string } | null,
    data?: Record<string, unknown>,
    orgId?: string,
  ): Promise<void>;
}
