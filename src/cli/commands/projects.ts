import { type Command, Option } from 'commander';
import { PROJECT_STATUSES, type ProjectPatch, type ProjectStatus } from '../../contract/projects.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { findProject, named, projectId } from '../names.js';
import { quoted } from '../output/quote.js';
import { done, record } from '../output/result.js';
import { oneOf } from '../parse.js';
import { addVerbs, type Verb, verb } from '../verb.js';
import { projectView } from '../views.js';

interface ListOptions extends PageOptions {
  status?: ProjectStatus;
  search?: string;
}

const list = verb<ListOptions>({
  name: 'list',
  summary: 'List the projects of the organization',
  examples: ['plat projects list --status active', 'plat projects list --search billing -o ids'],
  options: (c) => {
    c.addOption(
      completes(
        new Option('--status <status>', `only projects in this state: ${PROJECT_STATUSES.join(', ')}`),
        PROJECT_STATUSES,
      ),
    );
    c.option('--search <text>', 'name or description contains this (case-insensitive)');
    pagingOptions(c);
  },
  parse: (_args, o) => ({
    ...pageOptions(o),
    status: o.status === undefined ? undefined : oneOf(o.status, PROJECT_STATUSES, '--status'),
    search: o.search,
  }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return fetchList(ctx, o, {
      first: (q) => client.projects.list(org, q),
      query: { status: o.status, search: o.search },
      what: 'projects',
      view: projectView,
    });
  },
});

const get = verb<{ ref: string }>({
  name: 'get',
  args: '<id-or-slug>',
  summary: 'Show a project, by id or slug',
  examples: ['plat projects get billing-api', 'plat projects get proj_4Rk9mW2xLq7ZpT3vN8cY --json'],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => record(await findProject(ctx, o.ref), projectView),
});

/** Settings flags shared by create and update. */
function settingsOptions(c: Command): void {
  c.option('--description <text>', 'description');
  c.option('--default-env <name>', 'default environment (must exist in the project)');
  c.option('--auto-scaling', 'turn auto scaling on');
  c.option('--no-auto-scaling', 'turn auto scaling off');
  c.option('--notifications', 'turn notifications on');
  c.option('--no-notifications', 'turn notifications off');
}

/** The flags of the fields settingsOptions sets (see `Verb.fields`). */
const SETTINGS_FLAGS = { description: '--description', 'settings.defaultEnvironment': '--default-env' };

function settingsOf(o: Record<string, any>): ProjectPatch['settings'] {
  const settings: NonNullable<ProjectPatch['settings']> = {};
  if (o.defaultEnv !== undefined) settings.defaultEnvironment = o.defaultEnv;
  if (o.autoScaling !== undefined) settings.autoScaling = o.autoScaling;
  if (o.notifications !== undefined) settings.notificationsEnabled = o.notifications;
  return Object.keys(settings).length > 0 ? settings : undefined;
}

const create = verb<{ body: { name: string; description?: string; settings?: ProjectPatch['settings'] } }>({
  name: 'create',
  args: '<name>',
  summary: 'Create a project (with the environments development, staging and production)',
  examples: ['plat projects create "Billing API" --description "Invoices and payments" --auto-scaling'],
  options: settingsOptions,
  parse: ([name], o) => ({ body: { name, description: o.description, settings: settingsOf(o) } }),
  fields: (o) => ({ name: `name ${quoted(o.body.name)}`, ...SETTINGS_FLAGS }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return record(await client.projects.create(org, o.body), projectView, true);
  },
});

const update = verb<{ ref: string; patch: ProjectPatch }>({
  name: 'update',
  args: '<project>',
  summary: 'Change a project, by id or slug: name, description, settings (merged)',
  examples: ['plat projects update billing-api --default-env staging --no-notifications'],
  options: (c) => {
    c.option('--name <name>', 'new name (the slug never changes)');
    settingsOptions(c);
  },
  parse: ([ref], o) => {
    const patch: ProjectPatch = {};
    if (o.name !== undefined) patch.name = o.name;
    if (o.description !== undefined) patch.description = o.description;
    const settings = settingsOf(o);
    if (settings) patch.settings = settings;
    if (Object.keys(patch).length === 0)
      throw new UsageError('nothing to update: give --name, --description or a setting');
    return { ref, patch };
  },
  fields: () => ({ name: '--name', ...SETTINGS_FLAGS }),
  run: async (o, ctx) => {
    const id = await projectId(ctx, o.ref);
    return record(await (await ctx.client()).projects.update(id, o.patch), projectView, true);
  },
});

type Move = 'archive' | 'unarchive' | 'suspend' | 'resume';

/** A status move: `POST /projects/{id}/<move>`. */
function move(name: Move, summary: string, destructive = false): Verb<{ ref: string }> {
  return verb<{ ref: string }>({
    name,
    args: '<project>',
    summary,
    examples: [`plat projects ${name} billing-api${destructive ? ' --yes' : ''}`],
    parse: ([ref]) => ({ ref }),
    confirm: destructive ? (o) => `${name} project ${o.ref}` : undefined,
    run: async (o, ctx) => {
      const id = await projectId(ctx, o.ref);
      return record(await (await ctx.client()).projects[name](id), projectView, true);
    },
  });
}

const remove = verb<{ ref: string }>({
  name: 'delete',
  args: '<project>',
  summary: 'Delete a project, by id or slug, with its environments and members (irreversible)',
  examples: ['plat projects delete billing-api --yes', 'plat projects delete proj_4Rk9mW2xLq7ZpT3vN8cY --yes'],
  parse: ([ref]) => ({ ref }),
  confirm: (o) => `delete project ${o.ref} with its environments and members`,
  run: async (o, ctx) => {
    const id = await projectId(ctx, o.ref);
    await (await ctx.client()).projects.delete(id);
    return done(`Deleted project ${named(o.ref, id)}.`);
  },
});

/** `plat projects …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [
    list,
    get,
    create,
    update,
    move('archive', 'Archive a project, by id or slug (it refuses writes until unarchived)'),
    move('unarchive', 'Return an archived project to active'),
    move('suspend', 'Suspend a project (owners only)', true),
    move('resume', 'Resume a suspended project (owners only)'),
    remove,
  ]);
}
