// The one way the platform works through a durable queue in the background — the mail outbox (mail/delivery.ts) and
// webhook deliveries (webhooks/delivery.ts): claim what is due (each job leased to this server, so another takes it
// over when this one is gone), run a few at a time, sleep while nothing is due, and on stop let the runs in flight
// finish for a grace period before abandoning them to their leases.

import type { Clock } from './clock.js';
import { wakeableSleep } from './wakeable-sleep.js';

/** What a claim loop works through. */
export interface ClaimLoopSpec<J> {
  /** Claims up to `limit` jobs due at `now`, leasing them to this server until `leaseUntil`. */
  claim(limit: number, at: { now: string; leaseUntil: string }): Promise<J[]>;
  /** The clock `now` is read from, and how long a claim's lease lasts. */
  clock: Clock;
  leaseMs: number;
  /** Runs one job. `signal` is aborted when the run is abandoned: it must then record nothing more. */
  run(job: J, signal: AbortSignal): Promise<void>;
  /** A run threw (the database failing while it recorded the outcome): the lease brings the job back. */
  failed(job: J, err: unknown): void;
  /** The queue could not be read; the loop tries again after `pollMs`. */
  unreadable(err: unknown): void;
  /** How many jobs may be in flight now. */
  slots(): number;
  /** A pause before the next claim, in ms (0: none): asked before each claim, so the spec can back off. */
  pause?(): number;
  /** How long the loop sleeps when nothing is due. */
  pollMs: number;
  /** How long `stop()` lets runs in flight finish before abandoning them. */
  stopGraceMs: number;
}

/** A running claim loop. */
export interface ClaimLoop {
  /**
   * Stops claiming at once and lets the runs in flight finish, abandoning them (their signal aborted) once the grace
   * is over: resolves with whether they all finished, and how many were abandoned.
   */
  stop(): Promise<{ finished: boolean; abandoned: number }>;
}

/**
 * The lease of a claim whose run is limited to `runLimitMs`: at least the limit and a moment to record how it went
 * (a second) — a shorter one would let another server, or this one, run the same job again while it is still in
 * flight.
 */
export function leaseOutlasting(leaseMs: number, runLimitMs: number): number {
  return Math.max(leaseMs, runLimitMs + 1_000);
}

const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Starts working through a queue in the background (see `ClaimLoopSpec`). */
export function startClaimLoop<J>(spec: ClaimLoopSpec<J>): ClaimLoop {
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  let stopping = false;
  const { sleep, wake } = wakeableSleep();

  const track = (job: J) => {
    const p = spec
      .run(job, abort.signal)
      .catch((err: unknown) => {
        if (!abort.signal.aborted) spec.failed(job, err);
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  const loop = async () => {
    while (!stopping) {
      // Lets requests in: a run of jobs settled without any I/O would otherwise never leave the microtask queue.
      await yieldToIo();
      if (stopping) break;
      const pause = spec.pause?.() ?? 0;
      if (pause > 0) {
        await sleep(pause);
        continue;
      }
      const free = spec.slots() - inFlight.size;
      if (free <= 0) {
        await Promise.race(inFlight);
        continue;
      }
      let claimed: J[] = [];
      try {
        const now = spec.clock();
        const at = { now: now.toISOString(), leaseUntil: new Date(now.getTime() + spec.leaseMs).toISOString() };
        claimed = await spec.claim(free, at);
      } catch (err) {
        if (!stopping) spec.unreadable(err);
      }
      // `stop()` may have come while the queue was read: then end now, not after a poll's sleep.
      if (claimed.length === 0 && !stopping) await sleep(spec.pollMs);
      for (const job of claimed) track(job);
    }
  };

  const running = loop();
  let stopped: Promise<{ finished: boolean; abandoned: number }> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        stopping = true;
        wake();
        let grace: NodeJS.Timeout | undefined;
        const finished = await Promise.race([
          // The loop first: what it claimed while `stop()` came is in flight once it has ended.
          running.then(() => Promise.all(inFlight)).then(() => true),
          new Promise<false>((resolve) => {
            grace = setTimeout(resolve, spec.stopGraceMs, false);
          }),
        ]);
        clearTimeout(grace);
        const abandoned = finished ? 0 : inFlight.size;
        if (!finished) abort.abort();
        return { finished, abandoned };
      })();
      return stopped;
    },
  };
}
