import type { Command } from 'commander';
import type { Context } from '../context.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { named, teamId, userIds } from '../names.js';
import { quoted } from '../output/quote.js';
import { done, list as listOf, record } from '../output/result.js';
import { notice } from '../output/terminal.js';
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

const get = verb<{ ref: string }>({
  name: 'get',
  args: '<team>',
  summary: 'Show a team, by id or name',
  examples: ['plat teams get Engineering', `plat teams get ${T} --json`],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => record(await (await ctx.client()).teams.get(await teamId(ctx, o.ref)), teamView),
});

const create = verb<{ name: string }>({
  name: 'create',
  args: '<name>',
  summary: 'Create a team',
  examples: ['plat teams create Platform'],
  parse: ([name]) => ({ name }),
  fields: (o) => ({ name: `team name ${quoted(o.name)}` }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return record(await client.teams.create(org, { name: o.name }), teamView, true);
  },
});

const remove = verb<{ ref: string }>({
  name: 'delete',
  args: '<team>',
  summary: 'Delete a team (its members stay in the organization)',
  examples: ['plat teams delete Platform --yes', `plat teams delete ${T} --yes`],
  parse: ([ref]) => ({ ref }),
  confirm: (o) => `delete team ${o.ref}`,
  run: async (o, ctx) => {
    const id = await teamId(ctx, o.ref);
    await (await ctx.client()).teams.delete(id);
    return done(`Deleted team ${named(o.ref, id)}.`);
  },
});

const members = verb<PageOptions & { ref: string }>({
  name: 'members',
  args: '<team>',
  summary: 'List the members of a team',
  examples: ['plat teams members Engineering -o csv'],
  options: (c) => pagingOptions(c),
  parse: ([ref], o) => ({ ref, ...pageOptions(o) }),
  run: async (o, ctx) => {
    const [client, id] = [await ctx.client(), await teamId(ctx, o.ref)];
    return fetchList(ctx, o, {
      first: (q) => client.teams.members(id, q),
      query: {},
      what: 'members',
      view: teamMemberView,
    });
  },
});

interface Membership {
  team: string;
  users: string[];
}

/** The team's and the users' ids, every one resolved before anything changes (a typo in the third adds none). */
async function membership(ctx: Context, o: Membership) {
  const team = await teamId(ctx, o.team);
  return { teams: (await ctx.client()).teams, team, users: await userIds(ctx, o.users) };
}

const addMember = verb<Membership>({
  name: 'add-member',
  args: '<team> <users...>',
  summary: 'Add users of the organization (by id or e-mail) to a team; ones already in it are left as they are',
  examples: ['plat teams add-member Engineering ada@example.com grace@example.com'],
  parse: ([team, users]) => ({ team, users }),
  run: async (o, ctx) => {
    const { teams, team, users } = await membership(ctx, o);
    const added = [];
    for (const [i, userId] of users.entries()) {
      try {
        added.push(await teams.addMember(team, { userId }));
      } catch (err) {
        if ((err as { kind?: string }).kind !== 'conflict') throw err;
        notice(ctx, `${o.users[i]} is already in team ${o.team}.`);
      }
    }
    return listOf(added, teamMemberView);
  },
});

const removeMember = verb<Membership>({
  name: 'remove-member',
  args: '<team> <users...>',
  summary: 'Remove users (by id or e-mail) from a team; they stay in the organization',
  examples: ['plat teams remove-member Engineering ada@example.com --yes'],
  parse: ([team, users]) => ({ team, users }),
  confirm: (o) => `remove ${o.users.join(', ')} from team ${o.team}`,
  run: async (o, ctx) => {
    const { teams, team, users } = await membership(ctx, o);
    const removed: string[] = [];
    for (const [i, userId] of users.entries()) {
      const ref = o.users[i] as string;
      try {
        await teams.removeMember(team, userId);
        removed.push(named(ref, userId));
      } catch (err) {
        if ((err as { kind?: string }).kind !== 'not_found') throw err;
        notice(ctx, `${ref} is not in team ${o.team}.`);
      }
    }
    return done(
      removed.length > 0 ? `Removed ${removed.join(', ')} from team ${named(o.team, team)}.` : 'Removed nobody.',
    );
  },
});

/** `plat teams …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, get, create, remove, members, addMember, removeMember]);
}
