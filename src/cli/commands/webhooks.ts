import { type Command, Option } from 'commander';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  TEST_EVENT_TYPE,
  type WebhookUpdate,
} from '../../contract/webhooks.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors.js';
import { eventTypes } from '../event-types.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { named } from '../names.js';
import { isId } from '../organization-slug.js';
import { quoted } from '../output/quote.js';
import { done, list as listOf, record } from '../output/result.js';
import { notice } from '../output/terminal.js';
import { collect, oneOf } from '../parse.js';
import { addVerbs, eachValue, verb } from '../verb.js';
import { deliveryView, webhookView, webhookWithSecretView } from '../views.js';

// Webhook endpoints of the organization and their deliveries (docs/webhooks.md; docs/cli.md, "Webhooks"). A secret is
// printed by `create` and `rotate-secret` only, the one time the API gives it.

const W = 'wh_3Kp8Zq2Lx7Rv4Nc9Tb6H';

/**
 * A webhook endpoint's id, from its id (`wh_…`) or its URL (among the organization's endpoints, exactly as listed or
 * as the API normalises it): none is a not-found (5), several an ambiguity (2) listing them.
 */
async function webhookId(ctx: Context, ref: string): Promise<string> {
  if (isId('wh', ref)) return ref;
  const [client, org] = [await ctx.client(), await ctx.orgId()];
  let normal = ref;
  try {
    normal = new URL(ref).href;
  } catch {}
  const found = (await client.webhooks.list(org)).data.filter((w) => w.url === ref || w.url === normal);
  const [only, ...more] = found;
  if (!only) throw new NotFoundError(`no webhook endpoint ${quoted(ref)} in this organization (give its id or URL)`);
  if (more.length > 0) {
    const ids = found.map((w) => `  ${w.id}`).join('\n');
    throw new UsageError(`${found.length} webhook endpoints have the URL ${quoted(ref)}: give one's id\n${ids}`);
  }
  return only.id;
}

/** What to do with a secret just printed. */
function keepSecretHint(ctx: Context): void {
  notice(
    ctx,
    'Keep the SECRET below where the receiver verifies signatures (docs/webhooks.md): it is not shown again ' +
      '(plat webhooks rotate-secret makes a new one).',
  );
}

const list = verb<Record<string, never>>({
  name: 'list',
  summary: 'List the webhook endpoints of the organization, oldest first (never their secrets)',
  examples: ['plat webhooks list', 'plat webhooks list --json'],
  parse: () => ({}),
  run: async (_o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return listOf((await client.webhooks.list(org)).data, webhookView);
  },
});

interface CreateOptions {
  url: string;
  events?: string[];
  description?: string;
  enabled: boolean;
}

const create = verb<CreateOptions>({
  name: 'create',
  args: '<url>',
  summary: 'Add a webhook endpoint (every event type unless --event); its signing secret is printed this once',
  examples: [
    'plat webhooks create https://hooks.example.com/plat',
    'plat webhooks create https://hooks.example.com/plat --event user.invited --event user.deleted --json',
    'plat webhooks create http://localhost:3000/webhooks --description "local receiver" --disabled',
  ],
  options: (c) => {
    c.option('--event <type>', 'send only events of this type, e.g. user.invited (repeatable; default: all)', collect);
    c.option('--description <text>', 'what the endpoint is for');
    c.option('--disabled', 'create it disabled: nothing is sent until plat webhooks update --enable');
  },
  parse: ([url], o) => ({
    url,
    events: o.event === undefined ? undefined : eventTypes('--event', o.event),
    description: o.description,
    enabled: o.disabled !== true,
  }),
  fields: (o) => ({
    url: `URL ${quoted(o.url)}`,
    description: '--description',
    ...eachValue('events', '--event', o.events),
  }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const created = await client.webhooks.create(org, {
      url: o.url,
      ...(o.events && { events: o.events }),
      ...(o.description !== undefined && { description: o.description }),
      enabled: o.enabled,
    });
    keepSecretHint(ctx);
    return record(created, webhookWithSecretView);
  },
});

const get = verb<{ ref: string }>({
  name: 'get',
  args: '<webhook>',
  summary: 'Show a webhook endpoint, by id or URL (never its secret)',
  examples: [`plat webhooks get ${W}`, 'plat webhooks get https://hooks.example.com/plat --json'],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => record(await (await ctx.client()).webhooks.get(await webhookId(ctx, o.ref)), webhookView),
});

interface UpdateOptions {
  ref: string;
  change: WebhookUpdate;
}

const update = verb<UpdateOptions>({
  name: 'update',
  args: '<webhook>',
  summary: 'Change a webhook endpoint: its URL, the event types it receives, its description, enabled or not',
  examples: [
    `plat webhooks update ${W} --event user.invited --event user.deleted`,
    `plat webhooks update ${W} --all-events --enable`,
    'plat webhooks update https://hooks.example.com/plat --url https://hooks.example.com/v2 --description ""',
  ],
  options: (c) => {
    c.option('--url <url>', 'send to this URL instead');
    c.option('--event <type>', 'send only events of these types, replacing the list (repeatable)', collect);
    c.option('--all-events', 'send events of every type again');
    c.option('--description <text>', 'what the endpoint is for ("" removes it)');
    c.option('--enable', 'send to it again (one the platform disabled starts its failing days afresh)');
    c.option('--disable', 'send it nothing until --enable (deliveries wait)');
  },
  parse: ([ref], o) => {
    if (o.event && o.allEvents) throw new UsageError('--event and --all-events exclude each other');
    if (o.enable && o.disable) throw new UsageError('--enable and --disable exclude each other');
    const change: WebhookUpdate = {};
    if (o.url !== undefined) change.url = o.url;
    if (o.allEvents) change.events = [];
    else if (o.event) change.events = eventTypes('--event', o.event);
    if (o.description !== undefined) change.description = o.description === '' ? null : o.description;
    if (o.enable) change.enabled = true;
    if (o.disable) change.enabled = false;
    if (Object.keys(change).length === 0) {
      throw new UsageError(
        'nothing to change: give --url, --event, --all-events, --description, --enable or --disable',
      );
    }
    return { ref, change };
  },
  fields: (o) => ({
    url: `--url ${quoted(o.change.url ?? '')}`,
    description: '--description',
    ...eachValue('events', '--event', o.change.events),
  }),
  run: async (o, ctx) => {
    const id = await webhookId(ctx, o.ref);
    return record(await (await ctx.client()).webhooks.update(id, o.change), webhookView, true);
  },
});

const remove = verb<{ ref: string }>({
  name: 'delete',
  args: '<webhook>',
  summary: 'Remove a webhook endpoint and its deliveries: nothing more is sent to it',
  examples: [`plat webhooks delete ${W} --yes`],
  parse: ([ref]) => ({ ref }),
  confirm: (o) => `delete webhook endpoint ${o.ref} and its deliveries`,
  run: async (o, ctx) => {
    const id = await webhookId(ctx, o.ref);
    await (await ctx.client()).webhooks.delete(id);
    return done(`Deleted webhook endpoint ${named(o.ref, id)}.`);
  },
});

const rotateSecret = verb<{ ref: string }>({
  name: 'rotate-secret',
  args: '<webhook>',
  summary: 'Give a webhook endpoint a new secret, printed this once; the old one signs beside it for 24 hours',
  examples: [`plat webhooks rotate-secret ${W}`, `plat webhooks rotate-secret ${W} --json`],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => {
    const rotated = await (await ctx.client()).webhooks.rotateSecret(await webhookId(ctx, o.ref));
    keepSecretHint(ctx);
    if (rotated.previousSecretExpiresAt) {
      notice(
        ctx,
        `The old secret signs beside it until ${rotated.previousSecretExpiresAt}: switch the receiver before.`,
      );
    }
    return record(rotated, webhookWithSecretView);
  },
});

const test = verb<{ ref: string }>({
  name: 'test',
  args: '<webhook>',
  summary: `Send a ${TEST_EVENT_TYPE} event to a webhook endpoint (only there; not in the audit log)`,
  examples: [`plat webhooks test ${W}`, `plat webhooks test ${W} --json`],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => {
    const id = await webhookId(ctx, o.ref);
    const delivery = await (await ctx.client()).webhooks.test(id);
    const embedded = (await ctx.settings()).kind === 'embedded';
    notice(
      ctx,
      `Queued a ${TEST_EVENT_TYPE} event (delivery ${delivery.id}); see how it went with ` +
        `plat webhooks deliveries ${o.ref}` +
        (embedded ? ' (the embedded platform sends deliveries while plat serve runs on its database).' : '.'),
    );
    return record(delivery, deliveryView, true);
  },
});

interface DeliveriesOptions extends PageOptions {
  ref: string;
  status?: DeliveryStatus;
}

const deliveries = verb<DeliveriesOptions>({
  name: 'deliveries',
  args: '<webhook>',
  summary: "List a webhook endpoint's deliveries, newest first: status, attempts, the last answer, the next attempt",
  examples: [`plat webhooks deliveries ${W}`, `plat webhooks deliveries ${W} --status failed --all --json`],
  options: (c) => {
    c.addOption(
      completes(
        new Option('--status <status>', `only deliveries in this state: ${DELIVERY_STATUSES.join(', ')}`),
        DELIVERY_STATUSES,
      ),
    );
    pagingOptions(c, { offset: false });
  },
  parse: ([ref], o) => ({
    ref,
    ...pageOptions(o),
    status: o.status === undefined ? undefined : oneOf(o.status, DELIVERY_STATUSES, '--status'),
  }),
  run: async (o, ctx) => {
    const [client, id] = [await ctx.client(), await webhookId(ctx, o.ref)];
    return fetchList(ctx, o, {
      first: (q) => client.webhooks.deliveries(id, q),
      query: { status: o.status },
      what: 'deliveries',
      view: deliveryView,
    });
  },
});

const retry = verb<{ ref: string; delivery: string }>({
  name: 'retry',
  args: '<webhook> <delivery>',
  summary:
    'Attempt a pending or failed delivery now (a failed one gets one more attempt, failed again if it fails too)',
  examples: [`plat webhooks retry ${W} dlv_8Qw2Er5Ty7Ui9Op1As3D`],
  parse: ([ref, delivery]) => ({ ref, delivery }),
  run: async (o, ctx) => {
    const id = await webhookId(ctx, o.ref);
    const delivery = await (await ctx.client()).webhooks.retry(id, o.delivery);
    notice(ctx, `Delivery ${delivery.id} is due now.`);
    return record(delivery, deliveryView, true);
  },
});

/** `plat webhooks …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, create, get, update, remove, rotateSecret, test, deliveries, retry]);
}
