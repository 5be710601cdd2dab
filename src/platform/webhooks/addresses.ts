import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { isLoopback } from '../sso/fetch.js';

// Where webhooks may be sent (docs/webhooks.md, "Endpoint addresses"): `https`, or `http` to this machine; at delivery,
// never to a private or link-local address unless `plat serve --allow-private-webhooks` — checked on the addresses
// the connection really uses, so that a name cannot point elsewhere between the check and the request.

/** Why an address was refused: said to the caller (`422` naming `url`) or recorded on the delivery. */
export class AddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressError';
  }
}

/**
 * Ranges no webhook goes to without `--allow-private-webhooks`: private, shared, link-local, unspecified, multicast.
 * Made on first use: a `BlockList` is a native handle, which the startup snapshot cannot hold.
 */
let privateRanges: BlockList | undefined;
function privateList(): BlockList {
  if (privateRanges) return privateRanges;
  const list = new BlockList();
  for (const [net, prefix] of V4_PRIVATE) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of V6_PRIVATE) list.addSubnet(net, prefix, 'ipv6');
  privateRanges = list;
  return list;
}
const V4_PRIVATE = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['192.0.0.0', 24],
] as const;
const V6_PRIVATE = [
  ['::', 128],
  // Forms that carry an IPv4 address: IPv4-compatible, NAT64 (well-known and local), 6to4, Teredo.
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  ['fec0::', 10],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const;

/** Whether an address may receive webhooks: loopback always, private ranges only when allowed. */
export function addressAllowed(address: string, allowPrivate: boolean): boolean {
  if (isLoopback(address)) return true;
  const mapped = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(mapped) === 4 && mapped !== address) return addressAllowed(mapped, allowPrivate);
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return allowPrivate || !privateList().check(address, family);
}

/** How long a name's lookup may take before it counts as not resolving. */
const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Whether a name resolves, within 5 s, to loopback addresses and nothing else (plain http may go there). A name that
 * does not resolve, or not in time, does not.
 */
export async function resolvesToLoopbackOnly(host: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<[]>((resolve) => {
    timer = setTimeout(resolve, LOOKUP_TIMEOUT_MS, []);
  });
  const found = await Promise.race([lookup(host, { all: true }).catch(() => []), late]);
  clearTimeout(timer);
  return found.length > 0 && found.every((a) => isLoopback(a.address));
}

/**
 * A webhook URL as given to create or change an endpoint: absolute, `https`, or `http` to this machine — a name only
 * when every address it resolves to is loopback; no user name or password. Returns it normalised.
 */
export async function checkWebhookUrl(raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AddressError('is not a URL');
  }
  if (url.username || url.password) throw new AddressError('must not carry a user name or password');
  if (url.protocol === 'https:') return url.href;
  if (url.protocol !== 'http:') throw new AddressError('must be https (plain http only to this machine)');
  if (isLoopback(url.hostname)) return url.href;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0 && (await resolvesToLoopbackOnly(host))) return url.href;
  throw new AddressError('must be https (plain http only to this machine: localhost, 127.0.0.1, ::1)');
}

/**
 * An endpoint's URL as everything but the endpoint itself shows it — the `webhook.*` events (so the audit log, the
 * event stream and other endpoints' deliveries) and the server's log: its origin, the path and query masked. A webhook
 * URL is often a credential: Slack, Discord and Microsoft Teams keep their token in the path, others in the query.
 * Read back whole only from the endpoint (`GET /webhooks/{webhookId}`).
 */
export function maskedWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '***';
  }
  const bare = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '';
  return `${parsed.origin}/${bare ? '' : '***'}`;
}
