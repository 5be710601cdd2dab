import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { signedHeaders } from '../../contract/webhook-signature.js';
import { DELIVERY_RETENTION_MS, DISABLE_AFTER_MS, RETRY_SCHEDULE_MS } from '../../contract/webhooks.js';
import { leaseOutlasting, startClaimLoop } from '../claim-loop.js';
import { type Clock, randomBase62 } from '../clock.js';
import type { BaseCtx } from '../context.js';
import { audit } from '../operations/auth.js';
import { isLoopback } from '../sso/fetch.js';
import type { ClaimedDelivery } from '../store/webhooks.js';
import { addressAllowed, maskedWebhookUrl } from './addresses.js';

/** How `plat serve` delivers webhooks (docs/webhooks.md). */
export interface WebhookDeliveryOptions {
  /** Sends to private and link-local addresses too (`plat serve --allow-private-webhooks`). */
  allowPrivate?: boolean;
  /** How many deliveries are in flight at once. */
  concurrency?: number;
  /** How often the queue is read while nothing is due. */
  pollMs?: number;
  /**
   * How long a claim holds a delivery: a server gone meanwhile leaves it to another one after this. Never less than
   * `timeoutMs` and a second.
   */
  leaseMs?: number;
  /** How long an endpoint has to answer. */
  timeoutMs?: number;
  /** The waits between attempts (Standard Webhooks' schedule unless tests shorten it). */
  schedule?: readonly number[];
  /** How long `stop()` lets deliveries in flight finish before it abandons them to their leases. */
  stopGraceMs?: number;
}

const WEBHOOK_DEFAULTS = {
  concurrency: 8,
  pollMs: 500,
  leaseMs: 60_000,
  timeoutMs: 10_000,
  stopGraceMs: 5_000,
};

/** How often, by the platform's clock, the deliveries kept past their retention are removed; and how many at once. */
const RETENTION_EVERY_MS = 3600_000;
const RETENTION_BATCH = 500;

/** A running delivery. */
export interface WebhookDelivery {
  stop(): Promise<void>;
}

/** What one attempt came to: the endpoint's status, or why there was none. */
type Outcome = { ok: boolean; statusCode: number | null; error: string | null };

/**
 * A DNS lookup that refuses every address a webhook may not go to: the connection is made to what it answers, so a
 * name cannot resolve to an allowed address for a check and to another for the request. `code` says why it refused.
 */
function guardedLookup(allowed: (address: string) => boolean, code: 'EPRIVATE' | 'ENOTLOCAL') {
  return (
    hostname: string,
    options: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const usable = addresses.filter((a) => allowed(a.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`${hostname}: ${code}`), { code });
        return callback(refused, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, usable);
      const first = usable[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * Why the URL may not be sent to now, or null: plain http to an address literal only when it is loopback; any address
 * literal checked as such. Names are checked on the addresses they resolve to as they are connected to (the guarded
 * lookups: a loopback-only one for plain http).
 */
function refusal(url: URL, allowPrivate: boolean): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && isIP(host) !== 0) {
    return 'plain http goes only to this machine';
  }
  if (isIP(host) !== 0 && !addressAllowed(host, allowPrivate)) {
    return `${host} is a private address (plat serve --allow-private-webhooks sends there)`;
  }
  return null;
}

/**
 * Delivers webhooks in the background: claims due deliveries, POSTs each signed body, and records how it went —
 * delivered on a `2xx` within the time limit; else due again after the schedule's next wait, or failed after its last.
 * An endpoint failing every attempt for 5 days is disabled (event `webhook.disabled`). Everything is in the database:
 * another server, or this one restarted, takes over where it stopped (at least once: a delivery whose answer came but
 * was not recorded is sent again).
 */
export function startWebhookDelivery(
  base: () => BaseCtx,
  log: (line: string) => void,
  opts: WebhookDeliveryOptions = {},
): WebhookDelivery {
  const ctx = base();
  const clock: Clock = ctx.clock;
  const allowPrivate = opts.allowPrivate ?? false;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? WEBHOOK_DEFAULTS.concurrency));
  const pollMs = opts.pollMs ?? WEBHOOK_DEFAULTS.pollMs;
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  const leaseMs = leaseOutlasting(opts.leaseMs ?? WEBHOOK_DEFAULTS.leaseMs, timeoutMs);
  const schedule = opts.schedule ?? RETRY_SCHEDULE_MS;
  const stopGraceMs = opts.stopGraceMs ?? WEBHOOK_DEFAULTS.stopGraceMs;
  const owner = `webhooks_${randomBase62(16)}`;
  const agent = new Agent({
    connect: { lookup: guardedLookup((a) => addressAllowed(a, allowPrivate), 'EPRIVATE') },
    keepAliveTimeout: 4_000,
  });
  // Plain http goes to this machine only, on the addresses connected to as on those checked (refusal, above).
  const localAgent = new Agent({
    connect: { lookup: guardedLookup(isLoopback, 'ENOTLOCAL') },
    keepAliveTimeout: 4_000,
  });
  const send = async (d: ClaimedDelivery, abandoned: AbortSignal): Promise<Outcome> => {
    let url: URL;
    try {
      url = new URL(d.webhook.url);
    } catch {
      return { ok: false, statusCode: null, error: 'the endpoint URL is not a URL' };
    }
    if (d.webhook.secrets.filter(Boolean).length === 0) {
      return { ok: false, statusCode: null, error: 'its signing secret cannot be opened (sealed with another key)' };
    }
    const refused = refusal(url, allowPrivate);
    if (refused) return { ok: false, statusCode: null, error: refused };
    const timestamp = Math.floor(clock().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'plat-webhooks',
      ...signedHeaders(d.webhook.secrets, d.eventId, timestamp, d.payload),
    };
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body: d.payload,
        dispatcher: url.protocol === 'http:' ? localAgent : agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.any([abandoned, AbortSignal.timeout(timeoutMs)]),
      } as Parameters<typeof request>[1]);
      // Only the status matters: up to 64 KiB of the body are read and dropped (so the connection can be reused), the
      // rest abandoned with it.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return { ok, statusCode: res.statusCode, error: ok ? null : `answered ${res.statusCode}` };
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string } };
      const code = e.code ?? e.cause?.code;
      if (e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT') {
        return { ok: false, statusCode: null, error: `no answer within ${timeoutMs / 1000} s` };
      }
      if (code === 'EPRIVATE') {
        return { ok: false, statusCode: null, error: `${url.hostname} resolves to a private address` };
      }
      if (code === 'ENOTLOCAL') {
        return { ok: false, statusCode: null, error: `plain http goes only to this machine; ${url.hostname} is not` };
      }
      return { ok: false, statusCode: null, error: `could not be reached${code ? ` (${code})` : ''}` };
    }
  };

  /** Disables an endpoint failing for 5 days, recording the event, once (whichever server sees it first). */
  const disableIfFailing = async (d: ClaimedDelivery, now: Date): Promise<void> => {
    const since = d.webhook.failingSince;
    if (!since || now.getTime() - Date.parse(since) < DISABLE_AFTER_MS) return;
    const reason = `every attempt failed since ${since}`;
    await ctx.tx(async (tx) => {
      const before = new Date(now.getTime() - DISABLE_AFTER_MS).toISOString();
      if (!(await tx.stores.webhooks.disableFailing(d.webhook.id, before, now.toISOString(), reason))) return;
      await tx.stores.webhooks.park(d.webhook.id);
      await audit(
        tx,
        d.webhook.organizationId,
        { type: 'system', id: 'webhooks' },
        'webhook.disabled',
        {
          type: 'webhook',
          id: d.webhook.id,
        },
        { url: maskedWebhookUrl(d.webhook.url), reason, failingSince: since },
      );
    });
    log(`webhook ${d.webhook.id}: disabled, ${reason}`);
  };

  const attempt = async (d: ClaimedDelivery, abandoned: AbortSignal): Promise<void> => {
    const outcome = await send(d, abandoned);
    if (abandoned.aborted) return;
    const now = clock();
    const claim = {
      id: d.id,
      owner,
      attempt: d.attempt,
      leaseUntil: d.leaseUntil,
      webhookId: d.webhook.id,
      now: now.toISOString(),
    };
    if (outcome.ok) {
      await ctx.stores.webhooks.delivered({ ...claim, statusCode: outcome.statusCode as number });
      return;
    }
    const wait = schedule[d.attempt - 1];
    const at = wait === undefined ? null : new Date(now.getTime() + wait).toISOString();
    const error = outcome.error ?? 'failed';
    if (await ctx.stores.webhooks.failed({ ...claim, at, statusCode: outcome.statusCode, error })) {
      const to = maskedWebhookUrl(d.webhook.url);
      log(
        `webhook delivery ${d.id} (${d.eventId}) to ${to}: attempt ${d.attempt} failed (${error}); ` +
          (at ? `next at ${at}` : 'given up'),
      );
    }
    await disableIfFailing(d, now);
  };

  // Deliveries that ended are kept 30 days after they were made (docs/webhooks.md, "Deliveries"): removed beside the
  // deliveries, once an hour by the clock, in small batches (each a short write of its own), never waited for.
  let retainedAt = Number.NEGATIVE_INFINITY;
  let retaining: Promise<void> | undefined;
  let stopping = false;
  const removeExpired = async (now: number): Promise<void> => {
    const before = new Date(now - DELIVERY_RETENTION_MS).toISOString();
    let removed = 0;
    for (const id of await ctx.stores.webhooks.ids()) {
      for (;;) {
        // Stopping: what is left waits for the next hour (of this server or another).
        if (stopping) return;
        const n = await ctx.stores.webhooks.removeEnded(id, before, RETENTION_BATCH);
        removed += n;
        if (n < RETENTION_BATCH) break;
      }
    }
    const what = removed === 1 ? 'delivery that ended and was' : 'deliveries that ended and were';
    if (removed > 0) log(`webhooks: removed ${removed} ${what} made before ${before}`);
  };
  const retain = (now: number) => {
    if (retaining || now - retainedAt < RETENTION_EVERY_MS) return;
    retainedAt = now;
    retaining = removeExpired(now)
      .catch((err: unknown) => log(`webhooks: could not remove old deliveries (${(err as Error).message})`))
      .finally(() => {
        retaining = undefined;
      });
  };

  const loop = startClaimLoop<ClaimedDelivery>({
    claim: (limit, at) => {
      retain(Date.parse(at.now));
      return ctx.stores.webhooks.claim({ owner, limit, ...at });
    },
    clock,
    leaseMs,
    run: attempt,
    // The database failing while the outcome was recorded: the lease brings the delivery back.
    failed: (d, err) => log(`webhook delivery ${d.id}: could not record the attempt (${(err as Error).message})`),
    unreadable: (err) => log(`webhooks: could not read the deliveries (${(err as Error).message})`),
    slots: () => concurrency,
    pollMs,
    stopGraceMs,
  });
  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        // What is still in flight after the grace is abandoned to its lease: another server sends it again.
        stopping = true;
        await loop.stop();
        await retaining;
        await Promise.all([agent.close().catch(() => {}), localAgent.close().catch(() => {})]);
      })();
      return stopped;
    },
  };
}
