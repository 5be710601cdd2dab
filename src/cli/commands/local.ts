import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Resolved } from '../../config/resolve.js';
import { passwordProblem } from '../../platform/auth/passwords.js';
import type { Context } from '../context.js';
import { credentialAccount } from '../credential.js';
import { bootstrapEmbedded, bootstrapNotice, needsBootstrap, openPlatform } from '../embedded.js';
import { InvalidValueError, UsageError } from '../errors.js';
import { done, list as listOf, record } from '../output/result.js';
import { col } from '../output/view.js';
import { positiveInt } from '../parse.js';
import { addVerbs, verb } from '../verb.js';
import { mailView } from '../views.js';

/** The embedded settings, or a usage error naming the remote endpoint that was chosen instead. */
async function embedded(ctx: Context, what: string): Promise<Resolved & { db: string }> {
  const r = await ctx.settings();
  if (r.kind !== 'embedded' || !r.db) {
    throw new UsageError(
      `${what} works on the embedded platform, but profile "${r.profile}" is remote (${r.why.endpoint})`,
    );
  }
  return r as Resolved & { db: string };
}

const initView = {
  columns: [col('ORGANIZATION', 'organizationId'), col('OWNER', 'userId'), col('DB', 'db')],
  id: (r: { organizationId: string }) => r.organizationId,
};

interface InitOptions {
  email?: string;
  password?: string;
}

const init = verb<InitOptions>({
  name: 'init',
  summary: 'Create the embedded platform (or report the existing one); --org names its organization',
  examples: ['plat local init', 'plat local init --db ./dev.db --org "Acme Dev" --email me@acme.test --json'],
  options: (c) => {
    c.option('--email <email>', 'e-mail of the owner (default admin@localhost)');
    c.option('--password <password>', 'password of the owner, for signing in to the login pages');
  },
  parse: (_args, o) => {
    const problem = o.password === undefined ? undefined : passwordProblem(o.password);
    if (problem) throw new InvalidValueError(`--password ${problem}`);
    return { email: o.email, password: o.password };
  },
  run: async (o, ctx) => {
    const r = await embedded(ctx, 'local init');
    const g = ctx.globals();
    const email = o.email ?? 'admin@localhost';
    if (!needsBootstrap(r)) {
      if (o.password) ctx.warn('the platform exists already; its password was not changed');
      ctx.notice(`The embedded platform at ${r.db} exists already.`);
      const platform = await openPlatform(ctx, r.db, r.sandbox);
      try {
        const userId = platform.base().stores.users.accountByEmail(email)?.id ?? null;
        const organizationId = (await ctx.config()).profiles[r.profile]?.org ?? null;
        return record({ organizationId, userId, db: r.db }, initView);
      } finally {
        platform.close();
      }
    }
    const made = await bootstrapEmbedded(ctx, r, {
      orgName: g.org,
      email,
      password: o.password,
      recordDb: g.db !== undefined,
    });
    const json = g.json === true || g.output === 'json';
    ctx.notice(bootstrapNotice(made, email, (await ctx.credentials()).location, { passwordShownElsewhere: json }));
    // The secrets appear in --json only (the contract's shape); a generated password only when there is one.
    const { password, ...shown } = made;
    return record(password ? made : shown, initView, true);
  },
});

const reset = verb<Record<string, never>>({
  name: 'reset',
  summary: 'Delete the embedded platform and its stored key; the next command creates a fresh one',
  examples: ['plat local reset --yes'],
  parse: () => ({}),
  confirm: () => 'delete the embedded platform and everything in it',
  run: async (_o, ctx) => {
    const r = await embedded(ctx, 'local reset');
    // The database, its WAL files, and the rate-limit buckets kept beside it (`<db>.limits` and its WAL files).
    for (const suffix of ['', '-wal', '-shm', '.limits', '.limits-wal', '.limits-shm']) {
      await rm(`${r.db}${suffix}`, { force: true });
    }
    await (await ctx.credentials()).delete(credentialAccount(r));
    const config = await ctx.config();
    const profile = config.profiles[r.profile];
    if (profile?.org && !r.sandbox) {
      const { org: _org, ...rest } = profile;
      await ctx.saveConfig({ ...config, profiles: { ...config.profiles, [r.profile]: rest } });
    }
    return done(`Deleted the embedded platform at ${r.db}.`);
  },
});

const mail = verb<{ to?: string; limit?: number }>({
  name: 'mail',
  summary: "The embedded platform's mailbox (invitations and other e-mail), newest first",
  examples: ['plat local mail', 'plat local mail --to ada@example.com --limit 1 --json'],
  options: (c) => {
    c.option('--to <email>', 'only messages to this address');
    c.option('--limit <n>', 'at most this many messages', positiveInt);
  },
  parse: (_args, o) => ({ to: o.to, limit: o.limit }),
  run: async (o, ctx) => {
    const r = await embedded(ctx, 'local mail');
    if (!existsSync(r.db)) return listOf([], mailView);
    const platform = await openPlatform(ctx, r.db, r.sandbox);
    try {
      return listOf(platform.base().stores.outbox.list({ to: o.to, limit: o.limit }), mailView);
    } finally {
      platform.close();
    }
  },
});

const path = verb<Record<string, never>>({
  name: 'path',
  summary: "The embedded platform's database file",
  examples: ['plat local path', 'sqlite3 "$(plat local path)" .tables'],
  parse: () => ({}),
  run: async (_o, ctx) => ({ kind: 'text', text: `${(await embedded(ctx, 'local path')).db}\n` }),
});

/** `plat local …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [init, reset, mail, path]);
}
