import { type Command, Option } from 'commander';
import type { ApiKeyCreate } from '../../contract/api-keys.js';
import { KEY_ENVIRONMENTS } from '../../contract/api-keys.js';
import { PERMISSIONS } from '../../contract/permissions.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { keyId, named, projectId } from '../names.js';
import { done, record } from '../output/result.js';
import { notice } from '../output/terminal.js';
import { collect, isoTimestamp, oneOf } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { apiKeyView, createdApiKeyView } from '../views.js';

const list = verb<PageOptions>({
  name: 'list',
  summary: 'List the API keys of the organization (active and revoked; never their secrets)',
  examples: ['plat keys list'],
  options: (c) => pagingOptions(c),
  parse: (_args, o) => pageOptions(o),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return fetchList(ctx, o, {
      first: (q) => client.apiKeys.list(org, q),
      query: {},
      what: 'keys',
      view: apiKeyView(ctx.clock()),
    });
  },
});

interface CreateOptions {
  name: string;
  environment?: ApiKeyCreate['environment'];
  projectIds?: string[];
  permissions?: ApiKeyCreate['permissions'];
  expiresAt?: string;
}

const create = verb<CreateOptions>({
  name: 'create',
  summary: 'Create an API key; its secret is printed this once',
  examples: [
    'plat keys create --name ci --permission projects:read --permission resources:write',
    'plat keys create --name deploy --project billing-api --expires 2026-12-31 --json',
  ],
  options: (c) => {
    c.requiredOption('--name <name>', 'what the key is for');
    c.addOption(
      completes(new Option('--env <env>', 'live or test (default: live, or test with --sandbox)'), KEY_ENVIRONMENTS),
    );
    c.option('--project <project>', 'restrict to this project, by id or slug (repeatable)', collect);
    const permission = new Option(
      '--permission <perm>',
      'restrict to this permission, e.g. projects:read (repeatable)',
    );
    c.addOption(completes(permission.argParser(collect), PERMISSIONS));
    c.option('--expires <date>', 'expiry date or date-time (UTC)');
  },
  parse: (_args, o) => ({
    name: o.name,
    environment: o.env === undefined ? undefined : oneOf(o.env, KEY_ENVIRONMENTS, '--env'),
    projectIds: o.project,
    permissions: (o.permission as string[] | undefined)?.map((p) => oneOf(p, PERMISSIONS, '--permission')),
    expiresAt: o.expires === undefined ? undefined : isoTimestamp(o.expires, '--expires'),
  }),
  fields: () => ({
    name: '--name',
    expiresAt: '--expires',
    projectIds: '--project',
    permissions: '--permission',
  }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const environment = o.environment ?? ((await ctx.settings()).sandbox ? 'test' : 'live');
    const projectIds = o.projectIds && (await Promise.all(o.projectIds.map((p) => projectId(ctx, p))));
    const key = await client.apiKeys.create(org, { ...o, environment, projectIds });
    notice(ctx, 'Store the secret now: it is not shown again.');
    return record(key, createdApiKeyView);
  },
});

const revoke = verb<{ ref: string }>({
  name: 'revoke',
  args: '<key>',
  summary: 'Revoke an API key at once, by id or name (a name among the keys not revoked)',
  examples: ['plat keys revoke key_9Dm4xW7qNc2Lr8Zt5Kb3 --yes', 'plat keys revoke ci --yes'],
  parse: ([ref]) => ({ ref }),
  confirm: (o) => `revoke API key ${o.ref}`,
  run: async (o, ctx) => {
    const id = await keyId(ctx, o.ref);
    await (await ctx.client()).apiKeys.revoke(id);
    return done(`Revoked API key ${named(o.ref, id)}.`);
  },
});

/** `plat keys …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, create, revoke]);
}
