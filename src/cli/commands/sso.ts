import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import {
  SSO_DEFAULT_ROLES,
  SSO_PROTOCOLS,
  SSO_PROVIDERS,
  type SsoConfig,
  type SsoPut,
  type SsoPutDraft,
} from '../../contract/sso.js';
import { completes } from '../completion-values.js';
import type { Context } from '../context.js';
import { CliError, InvalidValueError, UsageError } from '../errors.js';
import { done, record } from '../output/result.js';
import { collect, keyValue, oneOf, positiveInt } from '../parse.js';
import { addVerbs, eachValue, verb } from '../verb.js';
import { ssoServiceProviderView, ssoTestView, ssoView } from '../views.js';

const get = verb<Record<string, never>>({
  name: 'get',
  summary: "Show the organization's single sign-on configuration (never the client secret)",
  examples: ['plat sso get', 'plat sso get --json'],
  parse: () => ({}),
  run: async (_o, ctx) => record(await (await ctx.client()).sso.get(await ctx.orgId()), ssoView),
});

interface SetOptions {
  body: SsoPutDraft;
  metadataFile?: string;
  secretFromStdin: boolean;
}

const set = verb<SetOptions>({
  name: 'set',
  summary: 'Create or replace the configuration (enabled state and a stored client secret are kept)',
  examples: [
    'plat sso set --protocol saml --provider okta --metadata-url https://acme.okta.com/app/sso/saml/metadata --map email=mail --domain acme.com',
    'printf %s "$SECRET" | plat sso set --protocol oidc --provider custom-oidc --issuer https://id.acme.com --client-id plat --client-secret-stdin --map email=email',
  ],
  options: (c) => {
    c.addOption(
      completes(new Option('--protocol <protocol>', SSO_PROTOCOLS.join(' or ')).makeOptionMandatory(), SSO_PROTOCOLS),
    );
    c.addOption(
      completes(new Option('--provider <provider>', SSO_PROVIDERS.join(', ')).makeOptionMandatory(), SSO_PROVIDERS),
    );
    c.option('--metadata-url <url>', 'SAML: where the identity provider publishes its metadata');
    c.option('--metadata-file <file>', 'SAML: the metadata XML, from a file');
    c.option('--issuer <url>', 'OIDC: the issuer URL');
    c.option('--client-id <id>', 'OIDC: the client id');
    c.option('--client-secret-stdin', 'OIDC: read the client secret from stdin (never give it as an argument)');
    c.option(
      '--map <field=attribute>',
      'map a user field to a provider attribute (repeatable; email is required)',
      collect,
    );
    c.option('--domain <domain>', 'an e-mail domain of the organization (repeatable)', collect);
    c.option('--allow-idp-initiated', "SAML: accept sign-ins the identity provider starts (its app dashboard's tile)");
    const defaultRole = `role of a user provisioned at first sign-in: ${SSO_DEFAULT_ROLES.join(' or ')}`;
    c.addOption(completes(new Option('--default-role <role>', defaultRole), SSO_DEFAULT_ROLES));
  },
  parse: (_args, o) => {
    if (o.metadataUrl && o.metadataFile) throw new UsageError('give --metadata-url or --metadata-file, not both');
    const protocol = oneOf(o.protocol, SSO_PROTOCOLS, '--protocol');
    const provider = oneOf(o.provider, SSO_PROVIDERS, '--provider');
    const maps = (o.map as string[] | undefined) ?? [];
    if (maps.length === 0) throw new UsageError('give at least --map email=ATTRIBUTE');
    const body: SsoPutDraft = {
      protocol,
      provider,
      metadataUrl: o.metadataUrl,
      issuer: o.issuer,
      clientId: o.clientId,
      attributeMapping: Object.fromEntries(maps.map((m) => keyValue(m, 'field=attribute after --map'))),
      domains: o.domain,
      allowIdpInitiated: o.allowIdpInitiated === true ? true : undefined,
      defaultRole: o.defaultRole === undefined ? undefined : oneOf(o.defaultRole, SSO_DEFAULT_ROLES, '--default-role'),
    };
    return { body, metadataFile: o.metadataFile, secretFromStdin: o.clientSecretStdin === true };
  },
  fields: (o) => ({
    metadataUrl: '--metadata-url',
    metadataXml: `--metadata-file ${o.metadataFile}`,
    issuer: '--issuer',
    clientId: '--client-id',
    clientSecret: '--client-secret-stdin',
    attributeMapping: '--map',
    domains: '--domain',
    ...eachValue('domains', '--domain', o.body.domains),
  }),
  run: async (o, ctx) => {
    const body = { ...o.body };
    if (o.metadataFile) body.metadataXml = await readText(ctx, o.metadataFile);
    if (o.secretFromStdin) {
      if (ctx.globals().apiKeyStdin) throw new UsageError('--client-secret-stdin and --api-key-stdin both need stdin');
      body.clientSecret = await ctx.stdinText();
      if (!body.clientSecret) throw new InvalidValueError('--client-secret-stdin: stdin was empty');
    }
    // Assembled from flags: the server checks it, answering 400 or 422 with the field.
    return record(await (await ctx.client()).sso.put(await ctx.orgId(), body as SsoPut), ssoView, true);
  },
});

async function readText(ctx: Context, file: string): Promise<string> {
  try {
    return readFileSync(resolve(ctx.deps.cwd, file), 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The PUT body that keeps a configuration as it is, but for `enabled` (the stored client secret is kept by the API). */
function sameConfig(c: SsoConfig, enabled: boolean): SsoPut {
  const body: SsoPutDraft = {
    protocol: c.protocol,
    provider: c.provider,
    enabled,
    attributeMapping: c.attributeMapping,
  };
  if (c.metadataUrl) body.metadataUrl = c.metadataUrl;
  if (c.metadataXml) body.metadataXml = c.metadataXml;
  if (c.issuer) body.issuer = c.issuer;
  if (c.clientId) body.clientId = c.clientId;
  if (c.domains.length > 0) body.domains = c.domains;
  if (c.allowIdpInitiated) body.allowIdpInitiated = true;
  if (c.defaultRole !== 'member') body.defaultRole = c.defaultRole;
  return body as SsoPut;
}

function toggle(name: 'enable' | 'disable') {
  const enabled = name === 'enable';
  return verb<Record<string, never>>({
    name,
    summary: `${enabled ? 'Turn on' : 'Turn off'} single sign-on (reads the configuration, then writes it back)`,
    examples: [`plat sso ${name}`],
    parse: () => ({}),
    run: async (_o, ctx) => {
      const [client, org] = [await ctx.client(), await ctx.orgId()];
      const current = await client.sso.get(org);
      return record(await client.sso.put(org, sameConfig(current, enabled)), ssoView, true);
    },
  });
}

const remove = verb<Record<string, never>>({
  name: 'delete',
  summary: 'Delete the single sign-on configuration',
  examples: ['plat sso delete --yes'],
  parse: () => ({}),
  confirm: () => 'delete the single sign-on configuration',
  run: async (_o, ctx) => {
    await (await ctx.client()).sso.delete(await ctx.orgId());
    return done('Deleted the single sign-on configuration.');
  },
});

const sp = verb<Record<string, never>>({
  name: 'sp',
  summary:
    "What to enter at the identity provider: this platform's SAML entity id, ACS URL and metadata URL, and OIDC redirect URI",
  examples: ['plat sso sp', 'plat sso sp --json'],
  parse: () => ({}),
  run: async (_o, ctx) =>
    record(await (await ctx.client()).sso.serviceProvider(await ctx.orgId()), ssoServiceProviderView),
});

const refresh = verb<Record<string, never>>({
  name: 'refresh',
  summary:
    'Read the identity provider again: fetch its metadata or OIDC discovery document (e.g. after it rotated its keys), or parse uploaded metadata again',
  examples: ['plat sso refresh'],
  parse: () => ({}),
  run: async (_o, ctx) => record(await (await ctx.client()).sso.refresh(await ctx.orgId()), ssoView, true),
});

const POLL_MS = 1_000;
const DEFAULT_TEST_TIMEOUT_SECONDS = 300;

const test = verb<{ browser: boolean; timeoutSeconds: number }>({
  name: 'test',
  summary:
    'Sign in through the identity provider in the browser and show what the platform received (or the check that failed); nobody is signed in',
  examples: ['plat sso test', 'plat sso test --no-browser --json'],
  options: (c) => {
    c.option('--no-browser', 'do not open a browser: print the sign-in URL (on stderr) and wait for it');
    c.option('--timeout <seconds>', 'how long to wait for the sign-in', positiveInt, DEFAULT_TEST_TIMEOUT_SECONDS);
  },
  parse: (_args, o) => ({ browser: o.browser !== false, timeoutSeconds: o.timeout }),
  run: async (o, ctx) => {
    const [client, org] = [await ctx.client(), await ctx.orgId()];
    const started = await client.sso.startTest(org);
    const url = started.signInUrl as string;
    ctx.io.err(`Sign in at your identity provider (a test: nobody is signed in here):\n  ${url}`);
    if (o.browser) {
      const { browserAvailability, openBrowser } = await import('../../auth/browser.js');
      const open = ctx.deps.openBrowser ?? ((u: string) => openBrowser(u, ctx.deps.env));
      if (browserAvailability(ctx.deps.env).ok) await open(url);
    }
    const sleep = ctx.deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    // Counted in polls, not read off the clock: the wait is what the sleeps add up to.
    for (let polls = Math.ceil((o.timeoutSeconds * 1000) / POLL_MS); ; polls--) {
      const t = await client.sso.getTest(org, started.id);
      if (t.status === 'succeeded') return record(t, ssoTestView);
      if (t.status === 'failed') {
        throw new CliError('unauthenticated', `the test sign-in failed: ${t.failure?.check} (test ${t.id})`);
      }
      if (polls <= 0) {
        throw new CliError('unauthenticated', `no sign-in came back within ${o.timeoutSeconds} s (test ${t.id})`);
      }
      await sleep(POLL_MS);
    }
  },
});

/** `plat sso …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [get, sp, set, refresh, test, toggle('enable'), toggle('disable'), remove]);
}
