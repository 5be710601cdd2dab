import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { projectId } from '../names.js';
import { quoted } from '../output/quote.js';
import { done, list as listOf, record } from '../output/result.js';
import { col, type View } from '../output/view.js';
import { keyValue } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { environmentView } from '../views.js';

const P = 'billing-api';

/** The client's environments and the project's id (given by id or slug). */
async function inProject(ctx: Context, ref: string) {
  const [client, project] = [await ctx.client(), await projectId(ctx, ref)];
  return { envs: client.environments, project };
}

/** An environment's configuration as KEY and VALUE rows (`-o ids`: the keys, for `xargs plat envs unset`). */
const configView: View<{ key: string; value: unknown }> = {
  columns: [col('KEY', 'key'), col('VALUE', 'value')],
  id: (r) => r.key,
};

interface EnvRef {
  project: string;
  env: string;
}

const list = verb<{ project: string }>({
  name: 'list',
  args: '<project>',
  summary: 'List the environments of a project',
  examples: [`plat envs list ${P}`],
  parse: ([project]) => ({ project }),
  run: async (o, ctx) => {
    const { envs, project } = await inProject(ctx, o.project);
    return listOf((await envs.list(project)).data, environmentView);
  },
});

const get = verb<EnvRef>({
  name: 'get',
  args: '<project> <env>',
  summary: "Show an environment's configuration: its keys and values (--json: the whole environment)",
  examples: [
    `plat envs get ${P} production`,
    `plat envs get ${P} production -o csv`,
    `plat envs get ${P} staging --json`,
  ],
  parse: ([project, env]) => ({ project, env }),
  run: async (o, ctx) => {
    const { envs, project } = await inProject(ctx, o.project);
    const env = await envs.get(project, o.env);
    const entries = Object.entries(env.config ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value }));
    return { kind: 'list', items: entries, view: configView, json: env };
  },
});

const create = verb<EnvRef>({
  name: 'create',
  args: '<project> <name>',
  summary: 'Create an environment (a lower-case slug of at most 32 characters)',
  examples: [`plat envs create ${P} preview`],
  parse: ([project, env]) => ({ project, env }),
  fields: (o) => ({ name: `environment name ${quoted(o.env)}` }),
  run: async (o, ctx) => {
    const { envs, project } = await inProject(ctx, o.project);
    const env = await envs.create(project, { name: o.env });
    return record(env, environmentView, true);
  },
});

const set = verb<EnvRef & { config: Record<string, string> }>({
  name: 'set',
  args: '<project> <env> <pairs...>',
  summary: 'Set configuration keys (KEY=VALUE…), keeping the others',
  examples: [`plat envs set ${P} staging LOG_LEVEL=debug FEATURE_X=on`],
  parse: ([project, env, pairs]) => ({
    project,
    env,
    config: Object.fromEntries((pairs as string[]).map((p) => keyValue(p))),
  }),
  run: async (o, ctx) => {
    const { envs, project } = await inProject(ctx, o.project);
    const env = await envs.update(project, o.env, { config: o.config });
    return record(env, environmentView, true);
  },
});

const unset = verb<EnvRef & { keys: string[] }>({
  name: 'unset',
  args: '<project> <env> <keys...>',
  summary: 'Remove configuration keys',
  examples: [`plat envs unset ${P} staging FEATURE_X`],
  parse: ([project, env, keys]) => {
    const bad = (keys as string[]).find((k) => k.includes('='));
    if (bad) throw new UsageError(`"${bad}" is not a key: envs unset takes key names, envs set takes KEY=VALUE`);
    return { project, env, keys };
  },
  run: async (o, ctx) => {
    const config = Object.fromEntries(o.keys.map((k) => [k, null]));
    const { envs, project } = await inProject(ctx, o.project);
    return record(await envs.update(project, o.env, { config }), environmentView, true);
  },
});

const remove = verb<EnvRef>({
  name: 'delete',
  args: '<project> <env>',
  summary: 'Delete an environment and its configuration (not the default one)',
  examples: [`plat envs delete ${P} preview --yes`],
  parse: ([project, env]) => ({ project, env }),
  confirm: (o) => `delete environment ${o.env} of project ${o.project}`,
  run: async (o, ctx) => {
    const { envs, project } = await inProject(ctx, o.project);
    await envs.delete(project, o.env);
    return done(`Deleted environment ${o.env} of project ${o.project}.`);
  },
});

const promote = verb<{ project: string; source: string; target: string }>({
  name: 'promote',
  args: '<project>',
  summary: "Replace one environment's configuration with another's, in one step",
  examples: [`plat envs promote ${P} --from staging --to production`],
  options: (c) => {
    c.requiredOption('--from <env>', 'source environment');
    c.requiredOption('--to <env>', 'target environment (its configuration is replaced)');
  },
  parse: ([project], o) => ({ project, source: o.from, target: o.to }),
  run: async (o, ctx) => {
    const { envs, project } = await inProject(ctx, o.project);
    const env = await envs.promote(project, { source: o.source, target: o.target });
    return record(env, environmentView, true);
  },
});

/** `plat envs …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, get, create, set, unset, remove, promote]);
}
