import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { done, record } from '../output/result.js';
import { addVerbs, verb } from '../verb.js';
import { teamMemberView, teamView } from '../views.js';

const T = 'team_3Hn7yR2vKp9Xw4Lc8Qm5';

const list = verb<PageOptions>({
  name: 'list',
  summary: 'List the teams of the organization',
  examples: ['plat teams list'],
  options: (c) => pagingOptions(c),
  parse: (_args, o) => pageOptions(o),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return fetchList(ctx, o, {
      first: (q) => client.teams.list(org, q),
      query: {},
      what: 'teams',
      view: teamView,
    });
  },
});

const get = verb<{ id: string }>({
  name: 'get',
  args: '<id>',
  summary: 'Show a team',
  examples: [`plat teams get ${T}`],
  parse: ([id]) => ({ id }),
  run: async (o, ctx) => record(await (await ctx.client()).teams.get(o.id), teamView),
});

const create = verb<{ name: string }>({
  name: 'create',
  args: '<name>',
  summary: 'Create a team',
  examples: ['plat teams create Platform'],
  parse: ([name]) => ({ name }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return record(await client.teams.create(org, { name: o.name }), teamView, true);
  },
});

const remove = verb<{ id: string }>({
  name: 'delete',
  args: '<id>',
  summary: 'Delete a team (its members stay in the organization)',
  examples: [`plat teams delete ${T} --yes`],
  parse: ([id]) => ({ id }),
  confirm: (o) => `delete team ${o.id}`,
  run: async (o, ctx) => {
    await (await ctx.client()).teams.delete(o.id);
    return done(`Deleted team ${o.id}.`);
  },
});

const members = verb<PageOptions & { id: string }>({
  name: 'members',
  args: '<id>',
  summary: 'List the members of a team',
  examples: [`plat teams members ${T} -o csv`],
  options: (c) => pagingOptions(c),
  parse: ([id], o) => ({ id, ...pageOptions(o) }),
  run: async (o, ctx) => {
    const client = await ctx.client();
    return fetchList(ctx, o, {
      first: (q) => client.teams.members(o.id, q),
      query: {},
      what: 'members',
      view: teamMemberView,
    });
  },
});

/** `plat teams …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, get, create, remove, members]);
}
