import type { OrgRole, Permission } from '../../src/contract/permissions.js';
import type { UserStatus } from '../../src/contract/users.js';
import { displayParts, generateApiKey, hashSecret } from '../../src/platform/auth/api-keys.js';
import type { BearerVerifier } from '../../src/platform/auth/credentials.js';
import { fixedClock, sequentialIds } from '../../src/platform/clock.js';
import { createPlatform, type LimitsOptions, type Platform } from '../../src/platform/index.js';
import { internalsOf, registerInternals } from '../../src/platform/internals.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import type { Stores } from '../../src/platform/store/index.js';
import { testDatabase } from './backend.js';
import { conformant } from './conformance.js';
import { baseOf } from './internals.js';

/** A real platform on an in-memory SQLite database with a fixed clock and sequential ids. */
export interface TestPlatform {
  platform: Platform;
  clock: ReturnType<typeof fixedClock>;
  /** The bootstrap organization, its owner, and the owner's multi-organization key. */
  orgId: string;
  ownerId: string;
  ownerKey: string;
  /** Calls the API in-process: `call('GET', '/users/…', { key, body, headers })`. */
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** Adds a user to an organization (default: the bootstrap one) through the stores, with an API key of theirs. */
  addUser(opts: AddUserOptions): Promise<{ userId: string; key: string }>;
  /** Makes an API key for an existing member, optionally restricted. */
  keyFor(userId: string, opts?: KeyOptions): Promise<string>;
  /** A second organization with its own owner and key, to prove tenancy. */
  otherOrg(): Promise<{ orgId: string; ownerId: string; key: string }>;
}

export interface AddUserOptions {
  email: string;
  name?: string;
  role?: OrgRole;
  status?: UserStatus;
  orgId?: string;
}
export interface KeyOptions {
  orgId?: string;
  permissions?: Permission[];
  projectIds?: string[];
  multiOrganization?: boolean;
  environment?: 'live' | 'test';
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * Sends one request through `fetch` (in-process or over HTTP) and reads the JSON reply. The exchange is checked
 * against the OpenAPI document (conformance.ts): one that drifts from it fails the test.
 */
export async function send(
  fetcher: (r: Request) => Promise<Response>,
  origin: string,
  defaultKey: string | null,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Reply> {
  const headers = new Headers(opts.headers);
  const key = opts.key === undefined ? defaultKey : opts.key;
  if (key) headers.set('X-API-Key', key);
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (!headers.has('content-type')) headers.set('Content-Type', 'application/json');
  }
  const res = await conformant(fetcher)(new Request(`${origin}/v2${path}`, { method, headers, body }));
  // A stream (Server-Sent Events) never ends by itself: its first chunk is the body, then it is cancelled.
  if (res.headers.get('content-type')?.startsWith('text/event-stream') && res.body) {
    const reader = res.body.getReader();
    const first = await reader.read();
    await reader.cancel();
    return { status: res.status, headers: res.headers, body: new TextDecoder().decode(first.value) };
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * A fresh platform with one bootstrapped organization: in memory on SQLite, or in a database of its own on PostgreSQL
 * (the PostgreSQL run; see backend.ts).
 */
export async function testPlatform(
  opts: {
    db?: string;
    mode?: 'live' | 'sandbox';
    bearer?: BearerVerifier;
    /** Off unless asked for: on a fixed clock buckets never refill, and most tests are not about limits. */
    limits?: LimitsOptions;
    /** Wraps the platform's stores (and each transaction's): to plant a fault. */
    wrapStores?: (stores: Stores) => Stores;
    /** The DNS server domain verification asks (`HOST:PORT`): a test's own (dns-server.ts). */
    dnsServer?: string;
  } = {},
): Promise<TestPlatform> {
  const clock = fixedClock('2026-01-01T00:00:00.000Z');
  const { db, secretKey } = await testDatabase(opts.db);
  const platform = await createPlatform({
    db,
    secretKey,
    clock,
    ids: sequentialIds(),
    mode: opts.mode,
    bearer: opts.bearer,
    publicUrl: 'http://plat.test',
    logger: () => {},
    limits: opts.limits ?? { enabled: false },
    wrapStores: opts.wrapStores,
    dnsServer: opts.dnsServer,
  });
  const { organizationId, userId, apiKey } = await bootstrap(baseOf(platform), {
    orgName: 'Acme',
    email: 'owner@acme.test',
    name: 'Olive Owner',
  });
  const base = baseOf(platform);
  const keyFor = async (userId: string, k: KeyOptions = {}) => {
    const environment = k.environment ?? (opts.mode === 'sandbox' ? 'test' : 'live');
    const secret = generateApiKey(environment);
    await base.stores.apiKeys.insert({
      id: base.ids('apiKey'),
      name: 'test key',
      organizationId: k.orgId ?? organizationId,
      userId,
      environment,
      ...displayParts(secret),
      secretHash: hashSecret(secret),
      projectIds: k.projectIds ?? null,
      permissions: k.permissions ?? null,
      multiOrganization: k.multiOrganization ?? false,
      createdAt: base.now(),
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    return secret;
  };
  const addUser = async (u: AddUserOptions) => {
    const now = base.now();
    const existing = await base.stores.users.accountByEmail(u.email);
    const userId = existing?.id ?? base.ids('user');
    if (!existing) await base.stores.users.insertAccount(userId, u.email, u.status !== 'pending', now);
    await base.stores.users.insertMembership({
      orgId: u.orgId ?? organizationId,
      userId,
      email: u.email,
      name: u.name ?? null,
      role: u.role ?? 'member',
      status: u.status ?? 'active',
      now,
    });
    return { userId, key: await keyFor(userId, { orgId: u.orgId }) };
  };
  // Whatever a test sends through the platform's own `fetch` is checked against the document too.
  const checkedFetch = conformant(platform.fetch);
  const checked = new Proxy(platform, {
    get: (target, key, receiver) => (key === 'fetch' ? checkedFetch : Reflect.get(target, key, receiver)),
  });
  registerInternals(checked, internalsOf(platform));
  return {
    addUser,
    keyFor,
    otherOrg: async () => {
      const o = await bootstrap(base, { orgName: 'Other Corp', email: 'boss@other.test', name: 'Oscar Other' });
      return { orgId: o.organizationId, ownerId: o.userId, key: o.apiKey };
    },
    platform: checked,
    clock,
    orgId: organizationId,
    ownerId: userId,
    ownerKey: apiKey,
    call: (method, path, callOpts) => send(platform.fetch, 'http://plat.test', apiKey, method, path, callOpts),
  };
}
