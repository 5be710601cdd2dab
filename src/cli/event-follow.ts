import type { PlatformClient } from '../client/client.js';
import { EventTooLargeError } from '../client/event-stream.js';
import type { ServerSentEvent } from '../contract/endpoint.js';
import type { Event } from '../contract/events.js';
import type { Context } from './context.js';

// Following an organization's audit log (docs/cli.md, "Events"): the event stream, from the starting point it sends
// first, resumed from the last position it gave whenever a connection ends — the server ends each one after 10
// minutes, and when it stops — so that nothing is missed and nothing comes twice.

/** The longest wait between two attempts to reconnect. */
const RECONNECT_MAX_MS = 30_000;
/** The first wait after a failed attempt; doubled at each failure that follows. */
const RECONNECT_BASE_MS = 500;
/** A connection that ends sooner than this, having given nothing, counts as a failure (its successor waits). */
const SHORT_LIVED_MS = 1_000;

/** Resolves after `ms`, or at once when `signal` is aborted. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Ends a stream opened too late to be read: its first step sees the signal aborted, and releases the connection. */
function release(stream: AsyncIterable<ServerSentEvent>): void {
  stream[Symbol.asyncIterator]()
    .next()
    .catch(() => {});
}

/** The stream being opened, or undefined as soon as `signal` is aborted (one opened later is released). */
function unlessAborted(
  opening: Promise<AsyncIterable<ServerSentEvent>>,
  signal: AbortSignal,
): Promise<AsyncIterable<ServerSentEvent> | undefined> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      opening.then(release, () => {});
      resolve(undefined);
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    opening.then(
      (stream) => {
        signal.removeEventListener('abort', abort);
        resolve(stream);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err);
      },
    );
  });
}

/**
 * The signal a long-running command stops on: SIGINT or SIGTERM (`ctx.deps.onShutdown`), once. `dispose` stops
 * listening for them.
 */
export function shutdownSignal(ctx: Context): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const subscribe = ctx.deps.onShutdown ?? (() => () => {});
  const unsubscribe = subscribe(() => controller.abort());
  return { signal: controller.signal, dispose: unsubscribe };
}

/** Whether a refusal to open the stream may pass: the server or the network, not the request. */
function transient(err: unknown): boolean {
  const e = err as { kind?: string; status?: unknown };
  if (typeof e?.status === 'number') return e.status >= 500 || e.status === 429 || e.status === 408;
  return e?.kind === 'network';
}

/** Why a connection ended, in a few words: `ECONNREFUSED`, `503 Service Unavailable`… */
function reason(err: unknown): string {
  const e = err as { errno?: string; code?: string; status?: number; message?: string; cause?: { code?: string } };
  if (typeof e?.status === 'number') return `${e.status}`;
  return e?.errno ?? e?.cause?.code ?? e?.code ?? e?.message ?? String(err);
}

/** The wait before the attempt after `failures` failed ones in a row (none after a connection that worked). */
function reconnectDelay(failures: number): number {
  if (failures === 0) return 0;
  const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** (failures - 1));
  return Math.floor(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** How `followEvents` starts and tells what happens on the way. */
export interface FollowOptions {
  /** Ends the stream (Ctrl-C). */
  signal: AbortSignal;
  /**
   * Called once the first connection is open, and awaited before any event is given out. The stream's starting point
   * is fixed by then: what is committed after it is streamed, so what is read here (the past events of `tail`) misses
   * nothing in between — and what it reads may come from the stream too.
   */
  onOpen?: () => Promise<void> | void;
  /** Called when a connection failed and the next attempt waits `delayMs`. */
  onRetry?: (why: string, delayMs: number) => void;
}

/**
 * The organization's events as they are committed from now on (the stream's own starting point), for as long as
 * `signal` lets it: reconnected with backoff (up to 30 s apart) after a failure of the server or the network, and
 * resumed (`Last-Event-ID`) from the last position the stream gave — the last event given out, or the starting point
 * when none was. The first connection's failure is thrown (there is nothing to resume yet), as is a refusal of the
 * request itself (`401`, `403`, a `Last-Event-ID` the server does not know) or an event that cannot be read.
 */
export async function* followEvents(client: PlatformClient, orgId: string, o: FollowOptions): AsyncGenerator<Event> {
  // Aborted when this generator ends, however it ends: a stream opened but never read is released too.
  const own = new AbortController();
  const signal = AbortSignal.any([o.signal, own.signal]);
  /** Where a new connection resumes: a position or an event id, as the stream sent it; none before the first. */
  let last: string | undefined;
  let opened = false;
  let failures = 0;
  const retry = async (why: string) => {
    const wait = reconnectDelay(failures);
    o.onRetry?.(why, wait);
    await sleep(wait, signal);
  };
  try {
    while (!signal.aborted) {
      const started = Date.now();
      let stream: AsyncIterable<ServerSentEvent> | undefined;
      try {
        const options = { ...(last && { lastEventId: last }), signal };
        stream = await unlessAborted(client.events.stream(orgId, options), signal);
      } catch (err) {
        // Refused (401, 403, an unknown Last-Event-ID…): no retry makes it pass.
        if (signal.aborted) return;
        if (!opened || !transient(err)) throw err;
        failures++;
        await retry(reason(err));
        continue;
      }
      if (!stream) return;
      if (!opened) {
        opened = true;
        try {
          await o.onOpen?.();
        } catch (err) {
          own.abort();
          release(stream);
          throw err;
        }
      }
      let given = false;
      try {
        for await (const message of stream) {
          // A position (the stream's starting point): nothing to give out, but where a reconnection resumes.
          if (message.event === '') {
            last = message.id || undefined;
            continue;
          }
          if (!message.id) continue;
          const event = JSON.parse(message.data) as Event;
          given = true;
          yield event;
          // Only once the event was taken care of: a connection lost meanwhile resumes after it, not before.
          last = message.id;
        }
        if (signal.aborted) return;
        // Ended by the server (its 10 minutes, or it stops): again at once, unless it keeps ending at once.
        failures = given || Date.now() - started >= SHORT_LIVED_MS ? 0 : failures + 1;
        if (failures > 0) await retry('the stream ended');
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof SyntaxError || err instanceof EventTooLargeError) throw err;
        // The connection was lost midway (the server died, the network went).
        failures = given ? 1 : failures + 1;
        await retry(reason(err));
      }
    }
  } finally {
    own.abort();
  }
}
