import { type Command, Option } from 'commander';
import { orderSchema } from '../../contract/common.js';
import { ORG_ROLES, type OrgRole } from '../../contract/permissions.js';
import { USER_SORTS, USER_STATUSES, type UserPatch, type UserSort, type UserStatus } from '../../contract/users.js';
import { addExportOptions, type ExportOptions, parseExportOptions } from '../bulk/export-options.js';
import { addImportOptions, type ImportOptions, parseImportOptions } from '../bulk/import-options.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { fetchList, type PageOptions, pageOptions, pagingOptions } from '../listing.js';
import { named, teamIds, userId } from '../names.js';
import { quoted } from '../output/quote.js';
import { done, record } from '../output/result.js';
import { collect, keyValue, oneOf } from '../parse.js';
import { addVerbs, eachValue, verb } from '../verb.js';
import { invitationView, userView } from '../views.js';

interface ListOptions extends PageOptions {
  status?: UserStatus;
  search?: string;
  sort?: UserSort;
  order?: 'asc' | 'desc';
}

const list = verb<ListOptions>({
  name: 'list',
  summary: 'List the users of the organization',
  examples: ['plat users list --status active --sort name --order asc', 'plat users list --search ada --all --json'],
  options: (c) => {
    c.addOption(
      completes(
        new Option('--status <status>', `only users in this state: ${USER_STATUSES.join(', ')}`),
        USER_STATUSES,
      ),
    );
    c.option('--search <text>', 'name or e-mail contains this (case-insensitive)');
    c.addOption(
      completes(new Option('--sort <field>', `sort by ${USER_SORTS.join(', ')} (default created_at)`), USER_SORTS),
    );
    c.addOption(completes(new Option('--order <order>', 'asc or desc (default desc)'), orderSchema.options));
    pagingOptions(c);
  },
  parse: (_args, o) => ({
    ...pageOptions(o),
    status: o.status === undefined ? undefined : oneOf(o.status, USER_STATUSES, '--status'),
    search: o.search,
    sort: o.sort === undefined ? undefined : oneOf(o.sort, USER_SORTS, '--sort'),
    order: o.order === undefined ? undefined : oneOf(o.order, orderSchema.options, '--order'),
  }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const query = { status: o.status, search: o.search, sort: o.sort, order: o.order };
    return fetchList(ctx, o, {
      first: (q) => client.users.list(org, q),
      query,
      what: 'users',
      view: userView,
    });
  },
});

const get = verb<{ ref: string }>({
  name: 'get',
  args: '<user>',
  summary: 'Show a user, by id or e-mail',
  examples: ['plat users get ada@example.com', 'plat users get user_8Jq2kX5mN1pR4sT7vW9y --json'],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => record(await (await ctx.client()).users.get(await userId(ctx, o.ref)), userView),
});

interface InviteOptions {
  email: string;
  name?: string;
  role?: OrgRole;
  teams?: string[];
}

const invite = verb<InviteOptions>({
  name: 'invite',
  args: '<email>',
  summary: 'Invite someone by e-mail: creates a pending user and sends the invitation',
  examples: ['plat users invite ada@example.com --name "Ada Lovelace" --role admin --team Engineering'],
  options: (c) => {
    c.option('--name <name>', 'display name');
    c.addOption(
      completes(new Option('--role <role>', `organization role: ${ORG_ROLES.join(', ')} (default member)`), ORG_ROLES),
    );
    c.option('--team <team>', 'add to this team, by id or name (repeatable)', collect);
  },
  parse: ([email], o) => ({
    email,
    name: o.name,
    role: o.role === undefined ? undefined : oneOf(o.role, ORG_ROLES, '--role'),
    teams: o.team,
  }),
  fields: (o) => ({
    email: `e-mail ${quoted(o.email)}`,
    name: '--name',
    teams: '--team',
    ...eachValue('teams', '--team', o.teams),
  }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const teams = o.teams && (await teamIds(ctx, o.teams));
    const body = { email: o.email, name: o.name, role: o.role, teams };
    return record(await client.users.invite(org, body), invitationView, true);
  },
});

interface UpdateOptions {
  ref: string;
  patch: UserPatch;
}

const update = verb<UpdateOptions>({
  name: 'update',
  args: '<user>',
  summary: 'Change a user, by id or e-mail: name, role, metadata (merged)',
  examples: [
    'plat users update ada@example.com --role admin',
    'plat users update user_8Jq2kX5mN1pR4sT7vW9y --metadata plan=gold --unset-metadata trial',
  ],
  options: (c) => {
    c.option('--name <name>', 'display name');
    c.addOption(completes(new Option('--role <role>', `organization role: ${ORG_ROLES.join(', ')}`), ORG_ROLES));
    c.option('--metadata <key=value>', 'set a metadata key (repeatable)', collect);
    c.option('--unset-metadata <key>', 'delete a metadata key (repeatable)', collect);
  },
  parse: ([ref], o) => {
    const patch: UserPatch = {};
    if (o.name !== undefined) patch.name = o.name;
    if (o.role !== undefined) patch.role = oneOf(o.role, ORG_ROLES, '--role');
    const metadata: Record<string, string | null> = {};
    for (const pair of (o.metadata as string[] | undefined) ?? []) {
      const [k, v] = keyValue(pair, 'key=value after --metadata');
      metadata[k] = v;
    }
    for (const k of (o.unsetMetadata as string[] | undefined) ?? []) metadata[k] = null;
    if (Object.keys(metadata).length > 0) patch.metadata = metadata;
    if (Object.keys(patch).length === 0) {
      throw new UsageError('nothing to update: give --name, --role, --metadata or --unset-metadata');
    }
    return { ref, patch };
  },
  fields: () => ({ name: '--name', metadata: '--metadata' }),
  run: async (o, ctx) => {
    const id = await userId(ctx, o.ref);
    return record(await (await ctx.client()).users.update(id, o.patch), userView, true);
  },
});

/** A verb about one user, given by id or e-mail. */
const aUser = (name: string) => ({ name, args: '<user>', parse: ([ref]: string[]) => ({ ref: ref as string }) });

const suspend = verb<{ ref: string }>({
  ...aUser('suspend'),
  summary: 'Suspend a user: revokes all their sessions and API keys at once',
  examples: ['plat users suspend ada@example.com --yes'],
  confirm: (o) => `suspend user ${o.ref} (revoking all their sessions and API keys)`,
  run: async (o, ctx) => record(await (await ctx.client()).users.suspend(await userId(ctx, o.ref)), userView, true),
});

const unsuspend = verb<{ ref: string }>({
  ...aUser('unsuspend'),
  summary: 'Return a suspended user to active (or pending if they never accepted)',
  examples: ['plat users unsuspend ada@example.com'],
  run: async (o, ctx) => record(await (await ctx.client()).users.unsuspend(await userId(ctx, o.ref)), userView, true),
});

const remove = verb<{ ref: string }>({
  ...aUser('delete'),
  summary: 'Remove a user from the organization, with their memberships, sessions and keys (irreversible)',
  examples: ['plat users delete user_8Jq2kX5mN1pR4sT7vW9y --yes', 'plat users delete ada@example.com --yes'],
  confirm: (o) => `delete user ${o.ref}`,
  run: async (o, ctx) => {
    const id = await userId(ctx, o.ref);
    await (await ctx.client()).users.delete(id);
    return done(`Deleted user ${named(o.ref, id)}.`);
  },
});

const exportAll = verb<ExportOptions>({
  name: 'export',
  summary: 'Write every user as CSV (imports back with plat users import), JSON or JSON lines, with their teams',
  examples: [
    'plat users export --output users.csv',
    'plat users export --format jsonl --status active > active-users.jsonl',
  ],
  options: addExportOptions,
  parse: (_args, o) => parseExportOptions(o),
  // The export's code (and csv-stringify) is loaded only when it runs.
  run: async (o, ctx) => (await import('../bulk/export.js')).exportUsers(o, ctx),
});

const importAll = verb<ImportOptions>({
  name: 'import',
  args: '<file>',
  summary:
    'Create (or with --upsert, update) users from a CSV, JSON or JSON lines file, or from the export of Auth0, ' +
    'Firebase, Cognito or Clerk (--from, with their password hashes), in batches; - reads stdin',
  options: addImportOptions,
  examples: [
    'plat users import people.csv --dry-run',
    'plat users import people.csv --upsert --invite',
    'plat users import people.jsonl --resume',
    'plat users export | plat users import - --profile staging --create-teams',
    'plat users import - --errors failed.jsonl --resume < people.csv',
    'plat users import tenant.json --from auth0 --dry-run',
    'printf %s "$KEY" | plat users import users.json --from firebase --hash-key-stdin --salt-separator Bw== --rounds 8 --mem-cost 14',
  ],
  parse: ([file], o) => parseImportOptions(file, o),
  // The import's code (and csv-parse) is loaded only when it runs.
  run: async (o, ctx) => (await import('../bulk/import.js')).importUsers(o, ctx),
});

/** `plat users …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, get, invite, update, suspend, unsuspend, remove, exportAll, importAll]);
}
