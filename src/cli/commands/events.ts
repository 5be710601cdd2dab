import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchList, pageOptions, pagingOptions } from '../listing.js';
import { isoTimestamp } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { eventView } from '../views.js';

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

/** `plat events …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list]);
}
