import type { OAuthTransport } from '../auth/oidc.js';
import type { TokenSession } from '../auth/token-session.js';
import type { PlatformClient } from '../client/client.js';
import { shownDb } from '../config/database-url.js';
import type { Resolved } from '../config/resolve.js';
import type { ActiveCredential } from './credential.js';
import type { CliDeps, Transport } from './deps.js';
import type { GlobalOptions } from './globals.js';
import { verboseLine } from './verbose.js';

/** What the client and sign-in requests are built with besides the connection itself. */
interface ClientSettings {
  globals: GlobalOptions;
  deps: CliDeps;
  log: (line: string) => void;
}

/**
 * A client over the run's transport and credential, acting in `orgId`. A signed-in profile's token comes from its
 * session: refreshed before it expires, and once more after a `401`.
 */
export async function newClient(
  c: { credential: ActiveCredential; transport: Transport; session?: TokenSession },
  o: ClientSettings & { orgId?: string },
): Promise<PlatformClient> {
  const { PlatformClient } = await import('../client/client.js');
  const g = o.globals;
  const session = c.session;
  return new PlatformClient({
    fetch: c.transport.fetch,
    baseUrl: c.transport.baseUrl,
    auth: session ? () => session.headers() : async () => c.credential.headers,
    onUnauthorized: session ? () => session.afterUnauthorized() : undefined,
    orgId: o.orgId,
    requestId: g.requestId,
    maxRetries: g.maxRetries,
    sleep: o.deps.sleep,
    userAgent: `plat-cli/${o.deps.version ?? 'dev'}`,
    onRequest: g.verbose ? (info) => o.log(verboseLine(info)) : undefined,
  });
}

/** How sign-in requests (discovery, token, revocation) travel: the same transport, retries and `--verbose` lines. */
export function oauthTransport(transport: Transport, o: ClientSettings): OAuthTransport {
  return {
    fetch: transport.fetch,
    maxRetries: o.globals.maxRetries,
    sleep: o.deps.sleep,
    onRequest: o.globals.verbose ? (info) => o.log(verboseLine(info)) : undefined,
  };
}

/** The transport the settings call for: the embedded platform in-process, or a remote instance over undici. */
export async function openTransport(deps: CliDeps, r: Resolved): Promise<Transport> {
  if (deps.transport) return deps.transport(r);
  if (r.kind === 'embedded') {
    const { embeddedTransport, secretKeyOf } = await import('./embedded.js');
    return embeddedTransport({
      db: r.db as string,
      mode: r.sandbox ? 'sandbox' : 'live',
      lightFetch: deps.lightFetch,
      secretKey: secretKeyOf(deps.env),
      dnsServer: deps.env.PLAT_DNS_SERVER,
      // What the platform logs (an internal error's cause) reaches the user as one line, with the database it is
      // about: never a stack trace.
      logger: (line) =>
        void deps.stderr.write(`plat: ${line.split('\n', 1)[0]} (database ${shownDb(r.db as string)})\n`),
    });
  }
  const remote = await (await import('../client/transports.js')).remoteTransport();
  return { fetch: remote.fetch, baseUrl: r.baseUrl as string, close: () => remote.close() };
}
