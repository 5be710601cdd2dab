import type { Command } from 'commander';
import type { PlatformClient } from '../../client/client.js';
import type { Event } from '../../contract/events.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { followEvents, shutdownSignal } from '../event-follow.js';
import { forwardEvent, listenSecretKey } from '../event-forward.js';
import { eventTypes } from '../event-types.js';
import { fetchList, pageOptions, pagingOptions } from '../listing.js';
import { inert, quoted } from '../output/quote.js';
import { done, type Output } from '../output/result.js';
import { notice, outputMode } from '../output/terminal.js';
import { collect, intBetween, isoTimestamp } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { eventView } from '../views.js';

// The audit log (docs/cli.md, "Events"): listed, followed as it is written (`tail --follow`), or forwarded to a local
// receiver as the platform's webhooks would send it (`listen`).

interface ListOptions {
  type?: string;
  since?: string;
  limit?: number;
  all?: boolean;
}

const list = verb<ListOptions>({
  name: 'list',
  summary: 'List the audit log of the organization, newest first',
  examples: ['plat events list --type user.invited --since 2026-01-01', 'plat events list --all --json'],
  options: (c) => {
    c.option('--type <type>', 'only events of this type, e.g. project.created');
    c.option('--since <date>', 'only events at or after this date or date-time');
    pagingOptions(c, { offset: false });
  },
  parse: (_args, o) => ({
    ...pageOptions(o),
    type: o.type,
    since: o.since === undefined ? undefined : isoTimestamp(o.since, '--since'),
  }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return fetchList(ctx, o, {
      first: (q) => client.events.list(org, q),
      query: { type: o.type, since: o.since },
      what: 'events',
      view: eventView,
    });
  },
});

/** How many events `tail` looks through, at most, for the last ones of several types (the list filters one). */
const SCAN_MAX = 1000;

/** Whether an event is of one of `types` (any, when none is given). */
const selects = (types: readonly string[], e: Event) => types.length === 0 || types.includes(e.type);

/** `type:id`, or `-` for none. */
const ref = (r: { type: string; id: string } | null) => (r ? `${r.type}:${r.id}` : '-');

/**
 * The last `n` events of `types`, oldest first: through the list's own `type` filter for one type; for several,
 * from the unfiltered list, looking through at most `SCAN_MAX` events.
 */
async function lastEvents(client: PlatformClient, org: string, types: string[], n: number): Promise<Event[]> {
  if (n === 0) return [];
  const one = types.length === 1 ? types[0] : undefined;
  const query = { ...(one && { type: one }), limit: types.length > 1 ? 100 : Math.min(100, n) };
  const found: Event[] = [];
  let scanned = 0;
  for await (const e of client.events.listAll(org, query)) {
    scanned++;
    if (selects(types, e)) found.push(e);
    if (found.length >= n || (types.length > 1 && scanned >= SCAN_MAX)) break;
  }
  return found.reverse();
}

interface TailOptions {
  follow: boolean;
  types: string[];
  limit: number;
}

const tail = verb<TailOptions>({
  name: 'tail',
  summary: 'Print the last events, oldest first; with --follow, then every new one as it is written (Ctrl-C stops)',
  examples: [
    'plat events tail',
    'plat events tail --follow --type user.invited --type user.deleted',
    'plat events tail -f --limit 0 --json | jq .type',
  ],
  options: (c) => {
    c.option('-f, --follow', 'keep printing events as they are written, until Ctrl-C');
    c.option('--type <type>', 'only events of this type (repeatable: any of them)', collect);
    c.option('--limit <n>', 'how many past events to print first, 0–1000', intBetween(0, 1000, { platform: true }), 20);
  },
  parse: (_args, o) => ({ follow: o.follow === true, types: eventTypes('--type', o.type ?? []), limit: o.limit }),
  run: async (o, ctx) => {
    const mode = outputMode(ctx.globals());
    if (mode === 'csv') throw new UsageError('events tail prints lines, NDJSON (--json) or ids (-o ids), not CSV');
    const terminal = ctx.io.stdoutTty;
    const write = (e: Event) => {
      if (mode === 'json') ctx.io.out(`${JSON.stringify(e)}\n`);
      else if (mode === 'ids') ctx.io.out(`${e.id}\n`);
      else {
        const line = `${e.createdAt}  ${e.type.padEnd(24)}  ${ref(e.actor)}  ${ref(e.target)}`;
        ctx.io.out(`${terminal ? inert(line) : line}\n`);
      }
      ctx.io.checkStdout();
    };
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    if (!o.follow) {
      for (const e of await lastEvents(client, org, o.types, o.limit)) write(e);
      return { kind: 'text', text: '' };
    }
    const stop = shutdownSignal(ctx);
    /** The ids printed from the past events: the stream may give them again (at most `--limit` of them). */
    const shown = new Set<string>();
    // The stream first, then the past events: whatever is committed after its starting point is streamed, whatever
    // before was there to list; an event in both (committed while the list was read) is printed once.
    const onOpen = async () => {
      for (const e of await lastEvents(client, org, o.types, o.limit)) {
        write(e);
        shown.add(e.id);
      }
      notice(ctx, 'Waiting for new events (Ctrl-C stops)…');
    };
    try {
      for await (const e of followEvents(client, org, { signal: stop.signal, onOpen, onRetry: onRetry(ctx) })) {
        if (shown.delete(e.id) || !selects(o.types, e)) continue;
        write(e);
      }
    } finally {
      stop.dispose();
    }
    return { kind: 'text', text: '' };
  },
});

/** Says on stderr that the stream was interrupted, and when it is tried again. */
const onRetry = (ctx: Context) => (why: string, ms: number) =>
  notice(ctx, `The event stream was interrupted (${why}): reconnecting in ${(ms / 1000).toFixed(1)} s…`);

interface ListenOptions {
  forwardTo: string;
  types: string[];
}

const listen = verb<ListenOptions>({
  name: 'listen',
  summary: 'Forward new events to a local URL, signed as the platform signs webhooks (Ctrl-C stops)',
  examples: [
    'plat events listen --forward-to http://localhost:3000/webhooks',
    'plat events listen --forward-to http://localhost:3000/webhooks --event user.invited --event user.deleted',
  ],
  options: (c) => {
    c.requiredOption('--forward-to <url>', 'POST each event to this URL (http or https)');
    c.option('--event <type>', 'forward only events of this type (repeatable: any of them)', collect);
  },
  parse: (_args, o) => {
    let url: URL | undefined;
    try {
      url = new URL(o.forwardTo);
    } catch {}
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UsageError(`--forward-to ${quoted(o.forwardTo)}: expected an http or https URL`);
    }
    return { forwardTo: url.href, types: eventTypes('--event', o.event ?? []) };
  },
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const mode = outputMode(ctx.globals());
    const { listenSecret } = await import('../../config/listen-secret.js');
    const { secret, path } = await listenSecret(ctx.configDir(), listenSecretKey(await ctx.settings()));
    const stop = shutdownSignal(ctx);
    let forwarded = 0;
    // Said once the stream is open, even with --quiet: without the secret, the receiver cannot check a signature.
    const onOpen = () => {
      ctx.io.err(`Forwarding new events of organization ${org} to ${o.forwardTo} (Ctrl-C stops).`);
      ctx.io.err(`Signing secret: ${secret}  (the same at every run of this profile; kept in ${path})`);
    };
    try {
      for await (const e of followEvents(client, org, { signal: stop.signal, onOpen, onRetry: onRetry(ctx) })) {
        if (!selects(o.types, e)) continue;
        const answer = await forwardEvent(o.forwardTo, e, secret, {
          signal: stop.signal,
          now: ctx.clock,
          userAgent: `plat-cli/${ctx.deps.version ?? 'dev'}`,
        });
        if (stop.signal.aborted) break;
        forwarded++;
        if (mode === 'json') ctx.io.out(`${JSON.stringify({ id: e.id, type: e.type, ...answer })}\n`);
        else {
          const result = answer.status === null ? `failed: ${answer.error}` : `${answer.status} (${answer.ms} ms)`;
          ctx.io.out(`${e.createdAt}  ${e.type}  ${e.id}  → ${inert(result)}\n`);
        }
        ctx.io.checkStdout();
      }
    } finally {
      stop.dispose();
    }
    return done(`Stopped: forwarded ${forwarded} event${forwarded === 1 ? '' : 's'}.`) as Output;
  },
});

/** `plat events …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, tail, listen]);
}
