import type { Command } from 'commander';
import type { Context } from '../context.js';
import { named, scimTokenId } from '../names.js';
import { quoted } from '../output/quote.js';
import { done, list as listOf, record } from '../output/result.js';
import { notice } from '../output/terminal.js';
import { addVerbs, verb, withExamples } from '../verb.js';
import { createdScimTokenView, scimStatusView, scimTokenView } from '../views.js';

// Directory sync over SCIM 2.0 (docs/scim.md): the tokens an identity provider provisions the organization with.

const listTokens = verb<Record<string, never>>({
  name: 'list',
  summary: "List the organization's SCIM tokens, with when each was last used (never their secrets)",
  examples: ['plat scim tokens list', 'plat scim tokens list --json'],
  parse: () => ({}),
  run: async (_o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return listOf((await client.scim.listTokens(org)).data, scimTokenView);
  },
});

const createToken = verb<{ name: string }>({
  name: 'create',
  args: '<name>',
  summary: 'Create a SCIM token for an identity provider; its secret is printed this once',
  examples: ['plat scim tokens create Okta', 'plat scim tokens create "Entra ID" --json'],
  parse: ([name]) => ({ name }),
  fields: (o) => ({ name: `token name ${quoted(o.name)}` }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const token = await client.scim.createToken(org, { name: o.name });
    // The secret is shown whatever happens next: a failure to read the base URL must not lose it.
    const baseUrl = await client.scim.status(org).then(
      (s) => s.baseUrl,
      () => undefined,
    );
    notice(
      ctx,
      `Enter at your identity provider (docs/scim.md):\n  SCIM base URL  ${baseUrl ?? '(see plat scim status)'}\n` +
        '  Bearer token   the TOKEN below — store it there now: it is not shown again.',
    );
    return record(token, createdScimTokenView);
  },
});

const revokeToken = verb<{ ref: string }>({
  name: 'revoke',
  args: '<token>',
  summary: 'Revoke a SCIM token at once, by id or name: its identity provider can no longer provision',
  examples: ['plat scim tokens revoke Okta --yes'],
  parse: ([ref]) => ({ ref }),
  confirm: (o) => `revoke SCIM token ${o.ref}`,
  run: async (o, ctx) => {
    const [id, org] = [await scimTokenId(ctx, o.ref), await ctx.orgId()];
    await (await ctx.client()).scim.deleteToken(org, id);
    return done(`Revoked SCIM token ${named(o.ref, id)}.`);
  },
});

const status = verb<Record<string, never>>({
  name: 'status',
  summary: 'Where directory sync stands: the SCIM base URL, tokens, requests, the last failure, what SCIM provisioned',
  examples: ['plat scim status', 'plat scim status --json'],
  parse: () => ({}),
  run: async (_o, ctx) => record(await (await ctx.client()).scim.status(await ctx.orgId()), scimStatusView),
});

/** `plat scim …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [status]);
  const tokens = noun.command('tokens').description('The bearer tokens identity providers provision with');
  withExamples(tokens, ['plat scim tokens create Okta']);
  addVerbs(tokens, ctx, [createToken, listTokens, revokeToken]);
}
