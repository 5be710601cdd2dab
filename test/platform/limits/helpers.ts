import { baseOf } from '../../helpers/internals.js';
import { type Reply, send, type TestPlatform, testPlatform } from '../../helpers/platform.js';

/** A test platform with limits on, buckets in memory, on the fixed clock. */
export function limitedPlatform(opts: Parameters<typeof testPlatform>[0] = {}): Promise<TestPlatform> {
  return testPlatform({ limits: { enabled: true }, ...opts });
}

/** Sets an organization's plan through the store, spending nothing. */
export async function setPlan(t: TestPlatform, plan: 'free' | 'pro' | 'enterprise', orgId = t.orgId): Promise<void> {
  const stores = baseOf(t.platform).stores;
  const org = await stores.organizations.get(orgId);
  if (!org) throw new Error(`no organization ${orgId}`);
  await stores.organizations.update({ ...org, plan });
}

/** `call`, as from a peer at `ip`. */
export function callFrom(
  t: TestPlatform,
  ip: string,
  method: string,
  path: string,
  opts: Parameters<TestPlatform['call']>[2] = {},
): Promise<Reply> {
  const bindings = { incoming: { socket: { remoteAddress: ip } } };
  return send((r) => t.platform.fetch(r, bindings), 'http://plat.test', t.ownerKey, method, path, opts);
}

/** The three rate-limit headers of a reply, as numbers (undefined when absent), and Retry-After. */
export function limitsOf(r: Reply) {
  const n = (name: string) => {
    const v = r.headers.get(name);
    return v === null ? undefined : Number(v);
  };
  return {
    limit: n('x-ratelimit-limit'),
    remaining: n('x-ratelimit-remaining'),
    reset: n('x-ratelimit-reset'),
    retryAfter: n('retry-after'),
  };
}

/** Unix second of the test clock's start. */
export const T0S = Date.parse('2026-01-01T00:00:00.000Z') / 1000;
