import { type Command, Option } from 'commander';
import { MFA_POLICIES } from '../../contract/mfa.js';
import { type OrganizationPatch, PLANS } from '../../contract/organizations.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { organizationId } from '../names.js';
import { quoted } from '../output/quote.js';
import { list as listOf, record } from '../output/result.js';
import { notice, warn } from '../output/terminal.js';
import { oneOf } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { organizationView } from '../views.js';

const O = 'org_5Wq8nT1zKd4Yb7Hs2Pv6';

const list = verb<Record<string, never>>({
  name: 'list',
  summary: 'List the organizations the credential can act in',
  examples: ['plat orgs list', 'plat orgs list -o ids'],
  parse: () => ({}),
  run: async (_o, ctx) => listOf((await (await ctx.client()).organizations.list()).data, organizationView),
});

const get = verb<{ ref?: string }>({
  name: 'get',
  args: '[org]',
  summary: 'Show an organization, by id or slug (default: the current one)',
  examples: ['plat orgs get', `plat orgs get ${O} --json`, 'plat orgs get acme-labs'],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => {
    // Reading another organization acts in it: X-Org-Id follows the id asked for.
    const id = o.ref ? await organizationId(ctx, o.ref) : await ctx.orgId();
    return record(await (await ctx.client(id)).organizations.get(id), organizationView);
  },
});

const create = verb<{ name: string }>({
  name: 'create',
  args: '<name>',
  summary: 'Create an organization (on the free plan) with you as its owner',
  examples: ['plat orgs create "Acme Labs"', 'plat orgs create "Acme Labs" -o ids | xargs plat orgs use'],
  parse: ([name]) => ({ name }),
  fields: (o) => ({ name: `name ${quoted(o.name)}` }),
  run: async (o, ctx) =>
    record(await (await ctx.client()).organizations.create({ name: o.name }), organizationView, true),
});

const update = verb<{ ref?: string; patch: OrganizationPatch }>({
  name: 'update',
  args: '[org]',
  summary: 'Rename an organization, change its plan or its second-factor policy (default: the current one)',
  examples: [
    'plat orgs update --name "Acme Inc"',
    `plat orgs update ${O} --plan pro`,
    'plat orgs update --mfa required',
  ],
  options: (c) => {
    c.option('--name <name>', 'new name');
    c.addOption(completes(new Option('--plan <plan>', `${PLANS.join(', ')} (owners only)`), PLANS));
    const mfa = new Option('--mfa <policy>', 'required (a second factor at sign-in) or optional (owners only)');
    c.addOption(completes(mfa, MFA_POLICIES));
  },
  parse: ([ref], o) => {
    const patch: OrganizationPatch = {};
    if (o.name !== undefined) patch.name = o.name;
    if (o.plan !== undefined) patch.plan = oneOf(o.plan, PLANS, '--plan');
    if (o.mfa !== undefined) patch.mfa = oneOf(o.mfa, MFA_POLICIES, '--mfa');
    if (Object.keys(patch).length === 0) throw new UsageError('nothing to update: give --name, --plan or --mfa');
    return { ref, patch };
  },
  fields: () => ({ name: '--name', plan: '--plan', mfa: '--mfa' }),
  run: async (o, ctx) => {
    const id = o.ref ? await organizationId(ctx, o.ref) : await ctx.orgId();
    return record(await (await ctx.client(id)).organizations.update(id, o.patch), organizationView, true);
  },
});

const use = verb<{ ref: string }>({
  name: 'use',
  args: '<org>',
  summary: "Make an organization (by id or slug) the profile's default (checked by reading it)",
  examples: [`plat orgs use ${O}`, 'plat orgs use acme-labs'],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => {
    const r = await ctx.settings();
    if (!r.orgSlot) {
      throw new UsageError(
        `--db names a database other than profile "${r.profile}"'s own, so there is no profile to record an ` +
          `organization in: pass --org ${o.ref} on each command instead`,
      );
    }
    const id = await organizationId(ctx, o.ref);
    const org = await (await ctx.client(id)).organizations.get(id);
    const file = await ctx.config();
    const config = file.current;
    const profile = { ...config.profiles[r.profile], [r.orgSlot]: org.id };
    await file.save({ ...config, profiles: { ...config.profiles, [r.profile]: profile } });
    const where = r.sandbox ? `Profile "${r.profile}"'s sandbox` : `Profile "${r.profile}"`;
    notice(ctx, `${where} now acts in ${org.name} (${org.id}).`);
    if (ctx.deps.env.PLAT_ORG) warn(ctx, 'PLAT_ORG is set and still takes precedence over the profile');
    return record(org, organizationView, true);
  },
});

/** `plat orgs …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, get, create, update, use]);
}
