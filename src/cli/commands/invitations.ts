import { type Command, Option } from 'commander';
import { INVITATION_STATUSES } from '../../contract/users.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { done, record } from '../output/result.js';
import { oneOf } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { invitationView } from '../views.js';

const I = 'inv_6Tz3pQ8wLm2Kx9Vr5Nd1';

const list = verb<PageOptions & { status?: string }>({
  name: 'list',
  summary: 'List the invitations of the organization',
  examples: ['plat invitations list --status pending'],
  options: (c) => {
    const status = new Option('--status <status>', `only invitations in this state: ${INVITATION_STATUSES.join(', ')}`);
    c.addOption(completes(status, INVITATION_STATUSES));
    pagingOptions(c);
  },
  parse: (_args, o) => ({
    ...pageOptions(o),
    status: o.status === undefined ? undefined : oneOf(o.status, INVITATION_STATUSES, '--status'),
  }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return fetchList(ctx, o, {
      first: (q) => client.invitations.list(org, q),
      query: { status: o.status },
      what: 'invitations',
      view: invitationView,
    });
  },
});

const resend = verb<{ id: string }>({
  name: 'resend',
  args: '<id>',
  summary: 'Send the invitation e-mail again',
  examples: [`plat invitations resend ${I}`],
  parse: ([id]) => ({ id }),
  run: async (o, ctx) => record(await (await ctx.client()).invitations.resend(o.id), invitationView, true),
});

const revoke = verb<{ id: string }>({
  name: 'revoke',
  args: '<id>',
  summary: 'Revoke an invitation (removes the still-pending user)',
  examples: [`plat invitations revoke ${I} --yes`],
  parse: ([id]) => ({ id }),
  confirm: (o) => `revoke invitation ${o.id}`,
  run: async (o, ctx) => {
    await (await ctx.client()).invitations.revoke(o.id);
    return done(`Revoked invitation ${o.id}.`);
  },
});

/** `plat invitations …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, resend, revoke]);
}
