import type { Event } from '../../contract/events.js';
import type { Ctx } from '../context.js';
import { PlatformError } from '../errors.js';
import type { StreamPosition } from '../store/events.js';
import { wakeableSleep } from '../wakeable-sleep.js';

// `GET /organizations/{orgId}/events/stream` (docs/webhooks.md, "The event stream"): the audit log as Server-Sent
// Events, in commit order, resumable with `Last-Event-ID`.

/** How often a quiet stream sends a comment, so that proxies and clients know it is alive. */
export const HEARTBEAT_MS = 15_000;
/**
 * How long one connection streams before the server ends it (the client resumes with `Last-Event-ID`): a revoked key
 * or an ended session stops reading within this, and a token never outlives its expiry on an open stream.
 */
export const STREAM_LIFETIME_MS = 10 * 60_000;
/** What a stream's starting point (an id that is no event's) begins with. */
export const POSITION_PREFIX = 'pos_';

/** A stream position as an id the client may send back in `Last-Event-ID`: signed, bound to the organization. */
function sealPosition(ctx: Ctx, orgId: string, p: StreamPosition): string {
  const filters = { tx: p.tx, since: p.since ?? null };
  return `${POSITION_PREFIX}${ctx.cursors.encode(`stream:${orgId}`, filters, [p.seq, 'position'])}`;
}

/** The position a `pos_…` id names, or undefined when it is no position this instance gave for the organization. */
function openPosition(ctx: Ctx, orgId: string, id: string): StreamPosition | undefined {
  try {
    const { filters, position } = ctx.cursors.decode(`stream:${orgId}`, id.slice(POSITION_PREFIX.length));
    const [seq] = position;
    const { tx, since } = filters;
    if (typeof seq !== 'number' || !(tx === null || typeof tx === 'string')) return undefined;
    if (!(since === null || since === undefined || typeof since === 'string')) return undefined;
    return { tx, seq, ...(typeof since === 'string' && { since }) };
  } catch {
    return undefined;
  }
}

/** The most events read at once. */
const BATCH = 100;

const encoder = new TextEncoder();

/** One event as the stream writes it: `id`, `event`, `data` (JSON on one line). */
function frame(e: Event): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/**
 * The organization's events after `lastEventId` (every one, `400` when it names no event of the organization), or
 * from now on without it, as a stream of Server-Sent Events. A key restricted to some projects reads no event about
 * another project.
 */
export async function streamEvents(
  ctx: Ctx,
  orgId: string,
  lastEventId: string | null,
): Promise<ReadableStream<Uint8Array>> {
  let from: StreamPosition | undefined;
  if (lastEventId !== null && lastEventId !== '') {
    from = lastEventId.startsWith(POSITION_PREFIX)
      ? openPosition(ctx, orgId, lastEventId)
      : await ctx.stores.events.position(orgId, lastEventId);
    if (!from) {
      throw new PlatformError('invalid_request', 'Last-Event-ID: no event of this organization has this id', {
        details: [{ field: 'Last-Event-ID', message: 'no event of this organization has this id' }],
      });
    }
  } else {
    from = await ctx.stores.events.now();
  }
  // Where this stream begins, sent first as an id alone: a client that loses the connection before any event resumes
  // from here rather than from a later "now" (docs/webhooks.md, "The event stream").
  const start = sealPosition(ctx, orgId, from);
  const position: StreamPosition = from;
  const reach = ctx.principal.projectIds;
  const { signal, pollMs } = ctx.streams;
  const started = ctx.clock().getTime();
  const expiry = ctx.principal.expiresAt ? Date.parse(ctx.principal.expiresAt) : Number.POSITIVE_INFINITY;
  const endAt = Math.min(started + STREAM_LIFETIME_MS, expiry);
  let lastWrite = Date.now();
  let cancelled = false;
  const { sleep, wake } = wakeableSleep();
  // Settles when the stream is stopped: a read in flight then is not waited for (the platform closing may end the
  // database's pool under it, and a query waiting for a connection of an ended pool never settles).
  let stopped = () => {};
  const stopping = new Promise<undefined>((resolve) => {
    stopped = () => resolve(undefined);
  });
  const stop = () => {
    cancelled = true;
    wake();
    stopped();
  };
  signal.addEventListener('abort', stop, { once: true });

  return new ReadableStream<Uint8Array>({
    start(controller) {
      // The client's reconnection delay and the stream's starting point, at once: the headers and these go out
      // together. A block with an id and no data dispatches nothing; it sets the id a client resumes from.
      controller.enqueue(encoder.encode(`retry: 1000\n\nid: ${start}\n\n`));
    },
    async pull(controller) {
      try {
        for (;;) {
          if (cancelled || ctx.clock().getTime() >= endAt) {
            signal.removeEventListener('abort', stop);
            controller.close();
            return;
          }
          const reading = ctx.stores.events.after(orgId, position, BATCH, reach);
          const batch = await Promise.race([reading, stopping]);
          if (batch === undefined) {
            reading.catch(() => {}); // what it comes to is of no use now
            continue;
          }
          if (batch.length > 0) {
            const last = batch[batch.length - 1];
            if (last) Object.assign(position, last.position);
            controller.enqueue(encoder.encode(batch.map((b) => frame(b.event)).join('')));
            lastWrite = Date.now();
            return;
          }
          if (Date.now() - lastWrite >= HEARTBEAT_MS) {
            controller.enqueue(encoder.encode(': keep-alive\n\n'));
            lastWrite = Date.now();
            return;
          }
          await sleep(pollMs);
        }
      } catch (err) {
        signal.removeEventListener('abort', stop);
        controller.error(err);
      }
    },
    cancel() {
      signal.removeEventListener('abort', stop);
      stop();
    },
  });
}
