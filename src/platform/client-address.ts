// Who a connection of `plat serve` is from (docs/api.md, "Behind a proxy"): its peer, or — for a connection from a
// proxy the operator trusts (`--trust-proxy`) — the client that proxy says it forwards. Rate limits, the per-address
// connection cap and the access log all use that address.
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
 * The client of a request arriving from `peer`: `peer` itself unless it is a trusted proxy; then the rightmost
 * `X-Forwarded-For` entry that is not a trusted proxy (the leftmost when all are), so that no client can choose its
 * address by writing the header itself. A header without a valid address leaves the proxy's.
 */
export function clientAddress(peer: string, forwardedFor: string | null, trusted: TrustedProxies | undefined): string {
  const plain = plainAddress(peer);
  if (!trusted || forwardedFor === null || !trusted.has(plain)) return plain;
  const hops = forwardedFor
    .split(',')
    .map((hop) => plainAddress(hop.trim()))
    .filter((hop) => isIP(hop) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i] as string)) return hops[i] as string;
  }
  return hops[0] ?? plain;
}
