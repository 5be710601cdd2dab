// Who a request to `plat serve` is from (docs/api.md, "Behind a proxy"): its connection's peer, or — for a connection
// from a proxy the operator trusts (`--trust-proxy`) — the client that proxy says it forwards. Rate limits and the
// access log use that address; the per-address connection cap counts connections by their peer (a trusted proxy is
// exempt from it).
import { BlockList, isIP } from 'node:net';

/** The addresses (and CIDR ranges) of the proxies whose `X-Forwarded-For` is believed. */
export interface TrustedProxies {
  /** Whether `address` (as a socket reports it) is one of them. */
  has(address: string): boolean;
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it is; any other as it is. */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * The trusted proxies of `entries` (`10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`…); throws a RangeError naming the first
 * entry that is neither an address nor a range.
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(plainAddress(address));
    const prefix = bits === undefined ? undefined : Number(bits);
    const max = family === 4 ? 32 : 128;
    if (
      family === 0 ||
      extra !== undefined ||
      (prefix !== undefined && (!/^\d{1,3}$/.test(bits as string) || (prefix as number) > max))
    ) {
      throw new RangeError(`not an IP address or CIDR range: ${JSON.stringify(raw)}`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(plainAddress(address), type);
    else list.addSubnet(plainAddress(address), prefix, type);
  }
  return {
    has(address) {
      const plain = plainAddress(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * One `X-Forwarded-For` entry as an address: as it is, or without the port some proxies append (`1.2.3.4:5678`,
 * `[2001:db8::1]:443`); undefined when it is no address (`unknown`, an obfuscated identifier, garbage).
 */
function hopAddress(entry: string): string | undefined {
  const hop = entry.trim();
  if (isIP(plainAddress(hop)) !== 0) return plainAddress(hop);
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
  if (bracketed && isIP(bracketed[1] as string) === 6) return plainAddress(bracketed[1] as string);
  const withPort = /^([^:]+):\d{1,5}$/.exec(hop);
  if (withPort && isIP(withPort[1] as string) === 4) return withPort[1] as string;
  return undefined;
}

/**
 * The client of a request arriving from `peer`: `peer` itself unless it is a trusted proxy; then the rightmost
 * `X-Forwarded-For` entry that is not a trusted proxy (the leftmost when all are), so that no client can choose its
 * address by writing the header itself. An entry that is no address ends the walk: what lies to its left is not
 * believed, and the request is the nearest trusted proxy's.
 */
export function clientAddress(peer: string, forwardedFor: string | null, trusted: TrustedProxies | undefined): string {
  const plain = plainAddress(peer);
  if (!trusted || forwardedFor === null || !trusted.has(plain)) return plain;
  const hops = forwardedFor.split(',');
  let nearest = plain;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hopAddress(hops[i] as string);
    if (hop === undefined) return nearest;
    if (!trusted.has(hop)) return hop;
    nearest = hop;
  }
  return nearest;
}

/**
 * What the per-address connection cap counts a peer under: an IPv4 address as it is; an IPv6 address by its /64, the
 * block one host is commonly given (whose 2^64 addresses it could otherwise cycle through).
 */
export function connectionGroup(address: string): string {
  const plain = plainAddress(address);
  if (isIP(plain) !== 6) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = plain.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = plain.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
