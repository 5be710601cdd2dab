import { type Command, Option } from 'commander';
import { PROJECT_ROLES, type ProjectRole } from '../../contract/permissions.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { named, projectId, userId } from '../names.js';
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
const role = (value: string): ProjectRole => oneOf(value, PROJECT_ROLES, '--role');

const list = verb<PageOptions & { project: string }>({
  name: 'list',
  args: '<project>',
  summary: 'List the members of a project',
  examples: ['plat members list billing-api'],
  options: (c) => pagingOptions(c),
  parse: ([project], o) => ({ project, ...pageOptions(o) }),
  run: async (o, ctx) => {
    const [client, project] = [await ctx.client(), await projectId(ctx, o.project)];
    return fetchList(ctx, o, {
      first: (q) => client.members.list(project, q),
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

/** The client's members, and the project's and user's ids (given by id, slug or e-mail). */
async function refs(ctx: Context, o: MemberRef) {
  const client = await ctx.client();
  return { members: client.members, project: await projectId(ctx, o.project), user: await userId(ctx, o.user) };
}

const add = verb<MemberRef & { role: ProjectRole }>({
  name: 'add',
  args: '<project> <user>',
  summary: 'Add a user of the organization to a project',
  examples: ['plat members add billing-api ada@example.com --role developer'],
  options: roleOption,
  parse: ([project, user], o) => ({ project, user, role: role(o.role) }),
  run: async (o, ctx) => {
    const { members, project, user } = await refs(ctx, o);
    const member = await members.add(project, { userId: user, role: o.role });
    return record(member, memberView, true);
  },
});

const update = verb<MemberRef & { role: ProjectRole }>({
  name: 'update',
  args: '<project> <user>',
  summary: "Change a member's project role",
  examples: ['plat members update billing-api ada@example.com --role admin'],
  options: roleOption,
  parse: ([project, user], o) => ({ project, user, role: role(o.role) }),
  run: async (o, ctx) => {
    const { members, project, user } = await refs(ctx, o);
    const member = await members.update(project, user, { role: o.role });
    return record(member, memberView, true);
  },
});

const remove = verb<MemberRef>({
  name: 'remove',
  args: '<project> <user>',
  summary: 'Remove a member from a project',
  examples: ['plat members remove billing-api user_8Jq2kX5mN1pR4sT7vW9y --yes'],
  parse: ([project, user]) => ({ project, user }),
  confirm: (o) => `remove ${o.user} from project ${o.project}`,
  run: async (o, ctx) => {
    const { members, project, user } = await refs(ctx, o);
    await members.remove(project, user);
    return done(`Removed ${named(o.user, user)} from project ${named(o.project, project)}.`);
  },
});

/** `plat members …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, add, update, remove]);
}
