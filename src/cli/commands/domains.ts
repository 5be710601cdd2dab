import type { Command } from 'commander';
import { domainNameSchema } from '../../contract/domains.js';
import type { Context } from '../context.js';
import { InvalidValueError } from '../errors.js';
import { domainId, named } from '../names.js';
import { quoted } from '../output/quote.js';
import { done, list as listOf, record } from '../output/result.js';
import { notice } from '../output/terminal.js';
import { addVerbs, verb } from '../verb.js';
import { domainView } from '../views.js';

// Domains an organization proves it owns by a DNS TXT record (docs/domains.md): single sign-on applies to them only.

const D = 'dom_7Hc2Lq9Zx4Rw8Np3Kt6V';

/** A domain name as given (a trailing dot, as DNS writes it, is dropped); a usage error when it is none. */
function domainArg(text: string): string {
  const domain = text.trim().replace(/\.$/, '');
  if (!domainNameSchema.safeParse(domain).success) {
    throw new InvalidValueError(`domain ${quoted(text)}: must be a domain name, such as acme.com`);
  }
  return domain;
}

/** What to do with a pending claim: publish its record, then verify. */
function nextStep(ctx: Context, d: { domain: string; verification: { name: string; value: string } }): void {
  notice(
    ctx,
    `Publish this DNS record at your DNS provider, then run \`plat domains verify ${d.domain}\`:\n` +
      `  ${d.verification.name}  TXT  "${d.verification.value}"`,
  );
}

const list = verb<Record<string, never>>({
  name: 'list',
  summary: 'List the domains the organization claims, verified or not, with the TXT record that proves each',
  examples: ['plat domains list', 'plat domains list --json'],
  parse: () => ({}),
  run: async (_o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    return listOf((await client.domains.list(org)).data, domainView);
  },
});

const add = verb<{ domain: string }>({
  name: 'add',
  args: '<domain>',
  summary: 'Claim a domain: prints the DNS TXT record to publish before `plat domains verify`',
  examples: ['plat domains add acme.com', 'plat domains add acme.com --json'],
  parse: ([domain]) => ({ domain: domainArg(domain) }),
  fields: (o) => ({ domain: `domain ${quoted(o.domain)}` }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const claimed = await client.domains.create(org, { domain: o.domain });
    nextStep(ctx, claimed);
    return record(claimed, domainView, true);
  },
});

const get = verb<{ ref: string }>({
  name: 'get',
  args: '<domain>',
  summary: 'Show a domain claim, by domain or id',
  examples: ['plat domains get acme.com', `plat domains get ${D} --json`],
  parse: ([ref]) => ({ ref }),
  run: async (o, ctx) => record(await (await ctx.client()).domains.get(await domainId(ctx, o.ref)), domainView),
});

const verify = verb<{ ref: string }>({
  name: 'verify',
  args: '<domain>',
  summary: 'Look the TXT record up now: the domain is verified, or the command says what DNS answered (exit 7)',
  examples: ['plat domains verify acme.com', `plat domains verify ${D} --json`],
  parse: ([ref]) => ({ ref }),
  fields: (o) => ({ domain: `domain ${quoted(o.ref)}` }),
  run: async (o, ctx) => {
    const client = await ctx.client();
    const verified = await client.domains.verify(await domainId(ctx, o.ref));
    notice(
      ctx,
      `${verified.domain} is verified: single sign-on may name it (plat sso set --domain ${verified.domain}).`,
    );
    return record(verified, domainView, true);
  },
});

const remove = verb<{ ref: string }>({
  name: 'remove',
  args: '<domain>',
  summary: 'Give a domain up: its claim, and its place in the single sign-on configuration',
  examples: ['plat domains remove acme.com --yes'],
  parse: ([ref]) => ({ ref }),
  confirm: (o) => `remove domain ${o.ref} (and stop single sign-on for it)`,
  run: async (o, ctx) => {
    const id = await domainId(ctx, o.ref);
    await (await ctx.client()).domains.delete(id);
    return done(`Removed domain ${named(o.ref, id)}.`);
  },
});

/** `plat domains …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, add, get, verify, remove]);
}
