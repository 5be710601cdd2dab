// How the platform looks a domain's TXT records up (docs/domains.md): the system's resolver, or one server named by
// `plat serve --dns-server` (PLAT_DNS_SERVER).
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** A domain name's TXT records, each one string (its character-strings joined); throws a `node:dns` error. */
export type TxtLookup = (name: string) => Promise<string[]>;

/** How long one lookup may take, in all: a verification waits on it. */
const TIMEOUT_MS = 2_000;
const TRIES = 2;

/**
 * `HOST[:PORT]` as `node:dns` takes it: an IPv4 address with an optional port, an IPv6 address (in brackets when a
 * port follows); undefined when it is not one. Names are refused: a resolver's address cannot itself need resolving.
 */
export function dnsServerAddress(text: string): string | undefined {
  const t = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(t);
  const [host, port] = bracketed
    ? [bracketed[1] as string, bracketed[2]]
    : isIP(t) === 6
      ? [t, undefined]
      : (t.split(/:(?=\d{1,5}$)/) as [string, string | undefined]);
  if (isIP(host) === 0) return undefined;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) return undefined;
  const shown = isIP(host) === 6 ? `[${host}]` : host;
  return port === undefined ? shown : `${shown}:${Number(port)}`;
}

/** The TXT lookup through `server` (`HOST[:PORT]`, see `dnsServerAddress`), or through the system's resolver. */
export function txtLookup(server?: string): TxtLookup {
  let resolver: Resolver | undefined;
  return async (name) => {
    if (!resolver) {
      resolver = new Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
      if (server !== undefined) resolver.setServers([server]);
    }
    const records = await resolver.resolveTxt(name);
    return records.map((chunks) => chunks.join(''));
  };
}
