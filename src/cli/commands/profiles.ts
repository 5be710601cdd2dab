import { join } from 'node:path';
import type { Command } from 'commander';
import type { Config, Profile } from '../../config/config.js';
import { PROFILE_NAME } from '../../config/profile-name.js';
import type { Context } from '../context.js';
import { CliError, InvalidValueError, UsageError } from '../errors.js';
import { done, list as listOf, record } from '../output/result.js';
import { notice, warn } from '../output/terminal.js';
import { col } from '../output/view.js';
import { addVerbs, verb } from '../verb.js';

/** A profile as `profiles list|show|add` print it. */
interface ProfileRow {
  name: string;
  current: boolean;
  kind: 'embedded' | 'remote';
  endpoint: string;
  sandboxEndpoint: string | null;
  org: string | null;
}

const profileView = {
  columns: [
    { header: 'CURRENT', get: (r: ProfileRow) => (r.current ? '*' : '') },
    col('NAME', 'name'),
    col('KIND', 'kind'),
    col('ENDPOINT', 'endpoint'),
    col('ORG', 'org'),
  ],
  detail: [
    col('NAME', 'name'),
    { header: 'CURRENT', get: (r: ProfileRow) => (r.current ? 'yes' : 'no') },
    col('KIND', 'kind'),
    col('ENDPOINT', 'endpoint'),
    col('SANDBOX', 'sandboxEndpoint'),
    col('ORG', 'org'),
  ],
  id: (r: ProfileRow) => r.name,
};

const currentName = (config: Config) => config.currentProfile ?? 'local';

function row(ctx: Context, config: Config, name: string, p: Profile): ProfileRow {
  const remote = p.baseUrl !== undefined;
  return {
    name,
    current: currentName(config) === name,
    kind: remote ? 'remote' : 'embedded',
    endpoint: p.baseUrl ?? p.db ?? join(ctx.dataDir(), `${name}.db`),
    sandboxEndpoint: p.sandboxBaseUrl ?? null,
    org: p.org ?? null,
  };
}

/** Every configured profile, plus the implicit embedded `local` when it is not configured. */
function allProfiles(config: Config): [string, Profile][] {
  const entries = Object.entries(config.profiles);
  return 'local' in config.profiles ? entries : [['local', {}], ...entries];
}

function known(config: Config, name: string): Profile {
  const p = config.profiles[name] ?? (name === 'local' ? {} : undefined);
  if (!p) throw new UsageError(`unknown profile "${name}"; see plat profiles list`);
  return p;
}

const add = verb<{ name: string; sandboxBaseUrl?: string; use: boolean }>({
  name: 'add',
  args: '<name>',
  summary:
    'Add a remote profile (--base-url required; --org, --sandbox-base-url optional; --api-key-stdin stores a key)',
  examples: [
    'plat profiles add prod --base-url https://api.example.com/v2 --org org_5Wq8nT1zKd4Yb7Hs2Pv6',
    'printf %s "$KEY" | plat profiles add staging --base-url https://staging.example.com --api-key-stdin --use',
  ],
  options: (c) => {
    c.option('--sandbox-base-url <url>', 'the sandbox instance --sandbox switches to');
    c.option('--use', 'make it the current profile');
  },
  parse: ([name], o) => {
    if (!PROFILE_NAME.test(name)) {
      throw new InvalidValueError(`invalid profile name "${name}": letters, digits, _ . - (at most 64)`);
    }
    return { name, sandboxBaseUrl: o.sandboxBaseUrl, use: o.use === true };
  },
  run: async (o, ctx) => {
    const g = ctx.globals();
    if (!g.baseUrl) throw new UsageError('profiles add needs --base-url URL');
    const embeddedFlag = g.db ? '--db' : g.databaseUrl !== undefined ? '--database-url' : undefined;
    if (embeddedFlag) {
      throw new UsageError(`${embeddedFlag} applies to the embedded platform only; a profile added here is remote`);
    }
    const { normalizeBaseUrl } = await import('../../config/resolve.js');
    const file = await ctx.config();
    const config = file.current;
    if (config.profiles[o.name]) throw new CliError('conflict', `profile "${o.name}" exists; remove it first`);
    const profile: Profile = { baseUrl: normalizeBaseUrl(g.baseUrl, '--base-url') };
    if (o.sandboxBaseUrl) profile.sandboxBaseUrl = normalizeBaseUrl(o.sandboxBaseUrl, '--sandbox-base-url');
    if (g.org) profile.org = g.org;
    if (g.apiKeyStdin) {
      const key = await ctx.stdinText();
      if (!key) throw new InvalidValueError('--api-key-stdin: stdin was empty');
      await (await ctx.credentials()).set(o.name, { apiKey: key });
      notice(ctx, `Stored the API key in ${(await ctx.credentials()).location}.`);
    }
    const next: Config = { ...config, profiles: { ...config.profiles, [o.name]: profile } };
    if (o.use) next.currentProfile = o.name;
    await file.save(next);
    return record(row(ctx, next, o.name, profile), profileView, true);
  },
});

const list = verb<Record<string, never>>({
  name: 'list',
  summary: 'List the profiles; * marks the current one',
  examples: ['plat profiles list'],
  parse: () => ({}),
  run: async (_o, ctx) => {
    const config = (await ctx.config()).current;
    return listOf(
      allProfiles(config).map(([name, p]) => row(ctx, config, name, p)),
      profileView,
    );
  },
});

const use = verb<{ name: string }>({
  name: 'use',
  args: '<name>',
  argValues: ['profiles'],
  summary: 'Make a profile the current one',
  examples: ['plat profiles use prod', 'plat profiles use local'],
  parse: ([name]) => ({ name }),
  run: async (o, ctx) => {
    const file = await ctx.config();
    const config = file.current;
    const p = known(config, o.name);
    const next = { ...config, currentProfile: o.name };
    await file.save(next);
    if (ctx.deps.env.PLAT_PROFILE) warn(ctx, 'PLAT_PROFILE is set and still takes precedence over the current profile');
    return record(row(ctx, next, o.name, p), profileView, true);
  },
});

const remove = verb<{ name: string }>({
  name: 'remove',
  args: '<name>',
  argValues: ['profiles'],
  summary: 'Remove a profile and its stored credentials (an embedded database stays)',
  examples: ['plat profiles remove staging --yes'],
  parse: ([name]) => ({ name }),
  // The embedded default cannot go: its database would stay without a key, and every command would then exit 3.
  check: async (o, ctx) => {
    const config = (await ctx.config()).current;
    const p = known(config, o.name);
    if (o.name === 'local' && !p.baseUrl) {
      throw new UsageError(
        'profile "local" is the embedded default and cannot be removed; ' +
          'plat local reset deletes the embedded platform and its stored key',
      );
    }
  },
  confirm: (o) => `remove profile ${o.name} and its stored credentials`,
  run: async (o, ctx) => {
    const file = await ctx.config();
    const config = file.current;
    known(config, o.name);
    const { [o.name]: _gone, ...profiles } = config.profiles;
    const next: Config = { ...config, profiles };
    if (next.currentProfile === o.name) delete next.currentProfile;
    await file.save(next);
    const store = await ctx.credentials();
    for (const account of [o.name, `${o.name}:sandbox`]) await store.delete(account);
    return done(`Removed profile ${o.name}.`);
  },
});

const show = verb<{ name?: string }>({
  name: 'show',
  args: '[name]',
  argValues: ['profiles'],
  summary: 'Show a profile (default: the one in use)',
  examples: ['plat profiles show', 'plat profiles show prod --json'],
  parse: ([name]) => ({ name }),
  run: async (o, ctx) => {
    const config = (await ctx.config()).current;
    const name = o.name ?? (await ctx.settings()).profile;
    return record(row(ctx, config, name, known(config, name)), profileView);
  },
});

/** `plat profiles …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [add, list, use, remove, show]);
}
