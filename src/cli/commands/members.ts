import { type Command, Option } from 'commander';
import { PROJECT_ROLES, type ProjectRole } from '../../contract/permissions.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { done, record } from '../output/result.js';
import { oneOf } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { memberView } from '../views.js';

const roleOption = (c: Command) =>
  c.addOption(
    completes(
      new Option('--role <role>', `project role: ${PROJECT_ROLES.join(', ')}`).makeOptionMandatory(),
      PROJECT_ROLES,
    ),
  );
const role = (value: string): ProjectRole => oneOf(value, PROJECT_ROLES, 'project role');

const list = verb<PageOptions & { project: string }>({
  name: 'list',
  args: '<project>',
  summary: 'List the members of a project',
  examples: ['plat members list proj_4Rk9mW2xLq7ZpT3vN8cY'],
  options: (c) => pagingOptions(c),
  parse: ([project], o) => ({ project, ...pageOptions(o) }),
  run: async (o, ctx) => {
    const client = await ctx.client();
    return fetchList(ctx, o, {
      first: (q) => client.members.list(o.project, q),
      query: {},
      what: 'members',
      view: memberView,
    });
  },
});

interface MemberRef {
  project: string;
  user: string;
}

const add = verb<MemberRef & { role: ProjectRole }>({
  name: 'add',
  args: '<project> <user>',
  summary: 'Add a user of the organization to a project',
  examples: ['plat members add proj_4Rk9mW2xLq7ZpT3vN8cY user_8Jq2kX5mN1pR4sT7vW9y --role developer'],
  options: roleOption,
  parse: ([project, user], o) => ({ project, user, role: role(o.role) }),
  run: async (o, ctx) => {
    const member = await (await ctx.client()).members.add(o.project, { userId: o.user, role: o.role });
    return record(member, memberView, true);
  },
});

const update = verb<MemberRef & { role: ProjectRole }>({
  name: 'update',
  args: '<project> <user>',
  summary: "Change a member's project role",
  examples: ['plat members update proj_4Rk9mW2xLq7ZpT3vN8cY user_8Jq2kX5mN1pR4sT7vW9y --role admin'],
  options: roleOption,
  parse: ([project, user], o) => ({ project, user, role: role(o.role) }),
  run: async (o, ctx) => {
    const member = await (await ctx.client()).members.update(o.project, o.user, { role: o.role });
    return record(member, memberView, true);
  },
});

const remove = verb<MemberRef>({
  name: 'remove',
  args: '<project> <user>',
  summary: 'Remove a member from a project',
  examples: ['plat members remove proj_4Rk9mW2xLq7ZpT3vN8cY user_8Jq2kX5mN1pR4sT7vW9y --yes'],
  parse: ([project, user]) => ({ project, user }),
  confirm: (o) => `remove ${o.user} from project ${o.project}`,
  run: async (o, ctx) => {
    await (await ctx.client()).members.remove(o.project, o.user);
    return done(`Removed ${o.user} from project ${o.project}.`);
  },
});

/** `plat members …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, add, update, remove]);
}
