import { type Command, Option } from 'commander';
import { INVITATION_STATUSES } from '../../contract/users.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { invitationId, named } from '../names.js';
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

const resend = verb<{ ref: string }>({
  name: 'resend',
  args: '<invitation>',
  summary: "Send the invitation e-mail again (an invitation's id, or the invitee's e-mail)",
  examples: [`plat invitations resend ${I}`, 'plat invitations resend ada@example.com'],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => {
    const id = await invitationId(ctx, o.ref);
    return record(await (await ctx.client()).invitations.resend(id), invitationView, true);
  },
});

const revoke = verb<{ ref: string }>({
  name: 'revoke',
  args: '<invitation>',
  summary: "Revoke an invitation, by its id or the invitee's e-mail (removes the still-pending user)",
  examples: [`plat invitations revoke ${I} --yes`, 'plat invitations revoke ada@example.com --yes'],
  parse: ([ref]) => ({ ref }),
  confirm: (o) => `revoke invitation ${o.ref}`,
  run: async (o, ctx) => {
    const id = await invitationId(ctx, o.ref);
    await (await ctx.client()).invitations.revoke(id);
    return done(`Revoked invitation ${named(o.ref, id)}.`);
  },
});

/** `plat invitations …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, resend, revoke]);
}
