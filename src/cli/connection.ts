import type { PlatformClient } from '../client/client.js';
import type { Resolved } from '../config/resolve.js';
import type { ActiveCredential } from './credential.js';
import type { CliDeps, Transport } from './deps.js';
import type { GlobalOptions } from './globals.js';
import { verboseLine } from './verbose.js';

/** A client over the run's transport and credential, acting in `orgId`. */
export async function newClient(
  c: { credential: ActiveCredential; transport: Transport },
  o: { orgId?: string; globals: GlobalOptions; deps: CliDeps; log: (line: string) => void },
): Promise<PlatformClient> {
  const { PlatformClient } = await import('../client/client.js');
  const g = o.globals;
  return new PlatformClient({
    fetch: c.transport.fetch,
    baseUrl: c.transport.baseUrl,
    auth: async () => c.credential.headers,
    orgId: o.orgId,
    requestId: g.requestId,
    maxRetries: g.maxRetries,
    sleep: o.deps.sleep,
    userAgent: `plat-cli/${o.deps.version ?? 'dev'}`,
    onRequest: g.verbose ? (info) => o.log(verboseLine(info)) : undefined,
  });
}

/** The transport the settings call for: the embedded platform in-process, or a remote instance over undici. */
export async function openTransport(deps: CliDeps, r: Resolved): Promise<Transport> {
  if (deps.transport) return deps.transport(r);
  const transports = await import('../client/transports.js');
  if (r.kind === 'embedded')
    return transports.embeddedTransport({ db: r.db as string, mode: r.sandbox ? 'sandbox' : 'live' });
  const remote = await transports.remoteTransport();
  return { fetch: remote.fetch, baseUrl: r.baseUrl as string, close: () => remote.close() };
}
