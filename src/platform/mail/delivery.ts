import { leaseOutlasting, startClaimLoop } from '../claim-loop.js';
import { type Clock, randomBase62 } from '../clock.js';
import type { ClaimedMail, outboxStore } from '../store/outbox.js';
import { formatMailFrom, type MailFrom, type SmtpTarget } from './settings.js';
import { type SmtpPace, type SmtpSender, smtpSender } from './smtp.js';

/** When a failed mail is tried again, and when the sender gives up on it. */
export interface RetryPolicy {
  /** The wait after a first failure; it doubles with each failure after that… */
  firstDelayMs: number;
  /** …up to this. */
  maxDelayMs: number;
  /** A mail the server rejects (5xx) is given up once it has been tried this many times. */
  rejectedAttempts: number;
  /** A mail still not sent this long after it was written is given up (its links would have expired). */
  maxAgeMs: number;
}

/** How `plat serve --smtp-url` delivers the outbox. */
export interface DeliveryOptions {
  smtp: SmtpTarget;
  from: MailFrom;
  /** Connections and messages a second; default `DELIVERY_DEFAULTS.pace`. */
  pace?: Partial<SmtpPace>;
  retry?: Partial<RetryPolicy>;
  /** How often the outbox is read while nothing is due. */
  pollMs?: number;
  /**
   * How long a claim holds a mail: a sender gone meanwhile leaves it to another one after this. At least a second
   * more than `sendTimeoutMs`.
   */
  leaseMs?: number;
  /** One send's time limit. */
  sendTimeoutMs?: number;
  /** How long `stop()` lets sends in flight finish before it abandons them to their leases. */
  stopGraceMs?: number;
}

/** The defaults of `DeliveryOptions` (docs/cli.md documents them). */
export const DELIVERY_DEFAULTS = {
  pace: { connections: 2, perSecond: 10 } satisfies SmtpPace,
  retry: {
    firstDelayMs: 10_000,
    maxDelayMs: 30 * 60_000,
    rejectedAttempts: 3,
    maxAgeMs: 5 * 24 * 3600_000,
  } satisfies RetryPolicy,
  pollMs: 1000,
  leaseMs: 5 * 60_000,
  sendTimeoutMs: 2 * 60_000,
  stopGraceMs: 10_000,
};

/** What the delivery runs over: the platform's outbox and clock, and where it reports. */
export interface DeliveryDeps {
  outbox: ReturnType<typeof outboxStore>;
  clock: Clock;
  log: (line: string) => void;
}

/** A running delivery. */
export interface MailDelivery {
  /** Stops claiming mails, lets those in flight finish (or abandons them to their leases), closes the connections. */
  stop(): Promise<void>;
}

/** The wait before attempt `attempt + 1`: exponential, capped. */
export const retryDelay = (attempt: number, r: RetryPolicy): number =>
  Math.min(r.firstDelayMs * 2 ** Math.min(attempt - 1, 30), r.maxDelayMs);

/** A duration as people say it: `300ms`, `10s`, `30 min`, `5 days`. */
function duration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 2 * 3600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 48 * 3600_000) return `${Math.round(ms / 3600_000)} hours`;
  return `${Math.round(ms / (24 * 3600_000))} days`;
}

/**
 * Delivers the outbox over SMTP in the background: claims due mails (at most one per connection at a time), sends
 * each, and records how it went — sent once the server accepted it; else retried later (exponential backoff), or
 * given up on a permanent rejection after `rejectedAttempts` tries, or when it is too old. When the server itself
 * fails (unreachable, credentials refused) the loop also pauses, backing off likewise, instead of trying every mail.
 * Everything is in the database: another server, or this one restarted, takes over where it stopped. Resolves once
 * the outbox has been read and the delivery announced in the log.
 */
export async function startDelivery(deps: DeliveryDeps, opts: DeliveryOptions): Promise<MailDelivery> {
  const { outbox, clock, log } = deps;
  const pace = { ...DELIVERY_DEFAULTS.pace, ...opts.pace };
  pace.connections = Math.max(1, Math.floor(pace.connections)); // the loop waits on a send when none is free
  const retry = { ...DELIVERY_DEFAULTS.retry, ...opts.retry };
  const pollMs = opts.pollMs ?? DELIVERY_DEFAULTS.pollMs;
  const sendTimeoutMs = opts.sendTimeoutMs ?? DELIVERY_DEFAULTS.sendTimeoutMs;
  const leaseMs = leaseOutlasting(opts.leaseMs ?? DELIVERY_DEFAULTS.leaseMs, sendTimeoutMs);
  const stopGraceMs = opts.stopGraceMs ?? DELIVERY_DEFAULTS.stopGraceMs;
  const sender: SmtpSender = smtpSender(opts.smtp, opts.from, pace);
  const owner = `sender_${randomBase62(16)}`;
  const server = opts.smtp.display;
  let pauseMs = 0;
  let serverFailures = 0;

  const serverFailed = (error: string) => {
    serverFailures++;
    const ms = retryDelay(serverFailures, { ...retry, maxDelayMs: Math.min(retry.maxDelayMs, 60_000) });
    if (ms > pauseMs) {
      pauseMs = ms;
      log(`mail: ${server} failed (${error}); trying again in ${duration(ms)}`);
    }
  };

  const attempt = async (mail: ClaimedMail, abandoned: AbortSignal): Promise<void> => {
    const claim = { id: mail.id, owner, attempt: mail.attempt };
    const age = clock().getTime() - Date.parse(mail.createdAt);
    if (age > retry.maxAgeMs) {
      const last = mail.lastError ? `; last error: ${mail.lastError}` : '';
      const error = `not sent within ${duration(retry.maxAgeMs)} of being written${last}`;
      if (await outbox.fail({ ...claim, now: clock().toISOString(), error })) {
        log(`mail ${mail.id} to ${mail.to}: given up, ${error}`);
      }
      return;
    }
    const outcome = await sender.send(mail, AbortSignal.any([abandoned, AbortSignal.timeout(sendTimeoutMs)]));
    if (abandoned.aborted) return;
    const now = clock();
    if (outcome.ok) {
      serverFailures = 0;
      await outbox.sent(mail.id, now.toISOString());
      log(`mail ${mail.id} to ${mail.to}: sent (attempt ${mail.attempt})`);
      return;
    }
    if (outcome.serverDown) serverFailed(outcome.error);
    else serverFailures = 0;
    const { error } = outcome;
    if (outcome.rejected && mail.attempt >= retry.rejectedAttempts) {
      if (await outbox.fail({ ...claim, now: now.toISOString(), error })) {
        log(`mail ${mail.id} to ${mail.to}: rejected, given up after ${mail.attempt} attempts (${error})`);
      }
      return;
    }
    const at = new Date(now.getTime() + retryDelay(mail.attempt, retry)).toISOString();
    if (await outbox.retry({ ...claim, at, error })) {
      log(`mail ${mail.id} to ${mail.to}: attempt ${mail.attempt} failed (${error}); next at ${at}`);
    }
  };

  const waiting = await outbox.waiting();
  log(
    `Mail: sending the outbox through ${server} as ${formatMailFrom(opts.from)}, at most ${pace.perSecond} ` +
      `messages a second over ${pace.connections} ${pace.connections === 1 ? 'connection' : 'connections'} ` +
      `(${waiting} waiting).`,
  );
  const loop = startClaimLoop<ClaimedMail>({
    claim: (limit, at) => outbox.claim({ owner, limit, ...at }),
    clock,
    leaseMs,
    run: attempt,
    // The database failing (busy past its timeout, closed under us): the lease brings the mail back.
    failed: (mail, err) => log(`mail ${mail.id}: could not record the attempt (${(err as Error).message})`),
    unreadable: (err) =>
      log(`mail: could not read the outbox (${(err as Error).message}); trying again in ${duration(pollMs)}`),
    // While the server is failing, one mail at a time finds out whether it is back.
    slots: () => (serverFailures > 0 ? 1 : pace.connections),
    pause: () => {
      const ms = pauseMs;
      pauseMs = 0;
      return ms;
    },
    pollMs,
    stopGraceMs,
  });
  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        const { finished, abandoned } = await loop.stop();
        if (!finished) {
          log(`mail: ${abandoned} in flight abandoned; another server takes them over in ${duration(leaseMs)}`);
        }
        sender.close(!finished);
      })();
      return stopped;
    },
  };
}
