import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { isDatabaseUrl, shownDb } from '../../config/database-url.js';
import type { Resolved } from '../../config/resolve.js';
import { failureKindOfStatus } from '../../contract/errors.js';
import { passwordProblem } from '../../contract/passwords.js';
import type { Context } from '../context.js';
import {
  bootstrapEmbedded,
  bootstrapNotice,
  type Delivery,
  type ForgottenSecrets,
  type Mail,
  openPlatform,
  platformExists,
  platformModule,
} from '../embedded.js';
import { CliError, InvalidValueError, UsageError } from '../errors.js';
import { quoted } from '../output/quote.js';
import { done, list as listOf, record } from '../output/result.js';
import { notice } from '../output/terminal.js';
import { col } from '../output/view.js';
import { positiveInt } from '../parse.js';
import { askSecret, readText } from '../prompt.js';
import { addVerbs, verb, withExamples } from '../verb.js';
import { domainView, mailView } from '../views.js';

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

/**
 * The embedded settings of a verb that works on a database file only (`path`, `reset`): on a PostgreSQL database, a
 * usage error that says what to do instead (never quoting the URL's password).
 */
async function embeddedFile(ctx: Context, what: string, instead: string): Promise<Resolved & { db: string }> {
  const r = await embedded(ctx, what);
  if (isDatabaseUrl(r.db)) {
    throw new UsageError(
      `${what} works on a SQLite database file, but the embedded platform is on the PostgreSQL database ` +
        `${shownDb(r.db)} (${r.why.endpoint}): ${instead}`,
    );
  }
  return r;
}

const initView = {
  columns: [col('ORGANIZATION', 'organizationId'), col('OWNER', 'userId'), col('DB', 'db')],
  id: (r: { organizationId: string }) => r.organizationId,
};

/** A platform just made with a generated owner password: the only time that password is shown (like a key's secret). */
const initWithPasswordView = {
  columns: [
    col('ORGANIZATION', 'organizationId'),
    col('OWNER', 'userId'),
    col('PASSWORD', 'password'),
    col('DB', 'db'),
  ],
  id: initView.id,
};

interface InitOptions {
  email?: string;
  password?: string;
  passwordStdin: boolean;
}

/**
 * The owner's password for `--password-stdin`: asked twice without echo when stdin is a terminal, else read as piped
 * (one trailing line break dropped: `echo` adds it, the sign-in page could not send it). Checked before anything
 * is changed.
 */
async function passwordFromStdin(ctx: Context, email: string): Promise<string> {
  if (ctx.globals().apiKeyStdin) throw new UsageError('--password-stdin and --api-key-stdin both need stdin');
  if (ctx.io.stdinTty) {
    const password = await askSecret(ctx.io, `Password for ${email}: `);
    const problem = passwordProblem(password);
    if (problem) throw new InvalidValueError(`the password ${problem}; nothing was changed`);
    if ((await askSecret(ctx.io, 'Repeat the password: ')) !== password) {
      throw new InvalidValueError('the two passwords differ; nothing was changed');
    }
    return password;
  }
  const password = (await readText(ctx.io.stdin)).replace(/\r?\n$/, '');
  if (!password) throw new InvalidValueError('--password-stdin: stdin was empty');
  // A password of several lines could never be typed into the sign-in page's one-line field.
  if (/[\r\n]/.test(password)) {
    throw new InvalidValueError('--password-stdin: stdin holds more than one line; pipe the password alone');
  }
  const problem = passwordProblem(password);
  if (problem) throw new InvalidValueError(`--password-stdin: the password ${problem}`);
  return password;
}

const init = verb<InitOptions>({
  name: 'init',
  summary:
    "Create the embedded platform (or report the existing one); --org names it; --password-stdin sets the owner's sign-in password",
  examples: [
    'plat local init',
    'plat local init --password-stdin          # asks for it, without echo',
    'printf %s "$OWNER_PASSWORD" | plat local init --password-stdin',
    'plat local init --db ./dev.db --org "Acme Dev" --email me@acme.test --json',
    'PLAT_SECRET_KEY=… plat local init --database-url postgres://plat:PASSWORD@db.example.com/plat --json',
  ],
  options: (c) => {
    c.option('--email <email>', 'e-mail of the owner (default admin@localhost)');
    c.option(
      '--password-stdin',
      "read the owner's sign-in password from stdin (asked without echo on a terminal); sets it on an existing platform too",
    );
    c.addOption(
      new Option(
        '--password <password>',
        'the same, given as an argument: less safe, it shows in shell history and to other users (ps)',
      ).conflicts('passwordStdin'),
    );
  },
  parse: (_args, o) => {
    const problem = o.password === undefined ? undefined : passwordProblem(o.password);
    if (problem) throw new InvalidValueError(`--password ${problem}`);
    return { email: o.email, password: o.password, passwordStdin: o.passwordStdin === true };
  },
  run: async (o, ctx) => {
    const r = await embedded(ctx, 'local init');
    const g = ctx.globals();
    const email = o.email ?? 'admin@localhost';
    const password = o.passwordStdin ? await passwordFromStdin(ctx, email) : o.password;
    const db = shownDb(r.db);
    // The platform that exists already: reported, and the owner's password set when one was given.
    const existing = async () => {
      notice(ctx, `The embedded platform at ${db} exists already.`);
      // Hashed before the platform is opened: the stretching takes a moment, and no database is held meanwhile.
      const passwordHash = password === undefined ? undefined : await (await platformModule()).hashPassword(password);
      const platform = await openPlatform(ctx, r.db, r.sandbox);
      let userId: string | null;
      let organizationId: string | null;
      try {
        const account = await platform.admin.account(email);
        if (passwordHash) {
          if (!account) throw new CliError('not_found', `no account ${email} on the embedded platform at ${db}`);
          await platform.admin.setPassword(email, passwordHash);
        }
        userId = account?.userId ?? null;
        // The organization the profile records for this database, else the owner's first (a --db of its own).
        const recorded = r.orgSlot && (await ctx.config()).current.profiles[r.profile]?.[r.orgSlot];
        organizationId = recorded || account?.organizationIds[0] || null;
      } finally {
        await platform.close();
      }
      if (passwordHash) notice(ctx, `Set the sign-in password of ${email}.`);
      return record({ organizationId, userId, db }, initView, passwordHash !== undefined);
    };
    if (await platformExists(ctx, r)) return existing();
    if (g.org !== undefined) {
      // The organization's name, checked as the API checks every name (before anything is created).
      const { nameSchema } = await import('../../contract/common.js');
      const named = nameSchema.safeParse(g.org);
      if (!named.success) throw new InvalidValueError(`--org ${named.error.issues[0]?.message}`);
    }
    // Another `local init` may be making the same platform right now: the one that makes it first wins, the other
    // reports it as existing.
    const { AlreadyMade } = await platformModule();
    const made = await bootstrapEmbedded(ctx, r, { orgName: g.org, email, password, onlyFirst: true }).catch(
      (err: unknown) => {
        if (err instanceof AlreadyMade) return undefined;
        throw err;
      },
    );
    if (!made) return existing();
    notice(ctx, bootstrapNotice(made, email, (await ctx.credentials()).location, { passwordShown: true }));
    // The key appears in --json only (the contract's shape). A generated password is shown this once, in a PASSWORD
    // column and in --json, and like a new key's secret it is printed even with --quiet.
    const { password: generated, ...shown } = made;
    return generated ? record(made, initWithPasswordView) : record(shown, initView, true);
  },
});

/** What `local reset` of a PostgreSQL database's platform is instead. */
const RESET_INSTEAD =
  "drop the database with PostgreSQL's own tools (dropdb), create it again, then run plat local init --database-url";

const reset = verb<Record<string, never>>({
  name: 'reset',
  summary: 'Delete the embedded platform and its stored key; the next command creates a fresh one',
  examples: ['plat local reset --yes'],
  parse: () => ({}),
  confirm: () => 'delete the embedded platform and everything in it',
  // Refused on PostgreSQL before the confirmation asks about it.
  check: async (_o, ctx) => void (await embeddedFile(ctx, 'local reset', RESET_INSTEAD)),
  run: async (_o, ctx) => {
    const r = await embeddedFile(ctx, 'local reset', RESET_INSTEAD);
    // The database, its rate-limit buckets and the key its secrets were sealed with: nothing it held is left.
    (await platformModule()).removePlatformFiles(r.db);
    await (await ctx.credentials()).delete(r.account);
    const file = await ctx.config();
    const config = file.current;
    const profile = config.profiles[r.profile];
    if (r.orgSlot && profile?.[r.orgSlot]) {
      const { [r.orgSlot]: _gone, ...rest } = profile;
      await file.save({ ...config, profiles: { ...config.profiles, [r.profile]: rest } });
    }
    return done(`Deleted the embedded platform at ${r.db}.`);
  },
});

const forgetSecrets = verb<Record<string, never>>({
  name: 'forget-secrets',
  summary:
    "Discard the embedded platform's sealed secrets (SSO client secrets, token-signing keys, mails' links) when the key they were sealed with is lost",
  examples: ['plat local forget-secrets --yes', 'plat --db /srv/plat/plat.db local forget-secrets --yes'],
  parse: () => ({}),
  confirm: () =>
    "discard the SSO client secrets, the token-signing keys and the mails' text and links of the embedded platform",
  run: async (_o, ctx) => {
    const r = await embedded(ctx, 'local forget-secrets');
    if (!isDatabaseUrl(r.db) && !existsSync(r.db)) {
      throw new CliError('not_found', `there is no embedded platform at ${r.db}`);
    }
    const platform = await openPlatform(ctx, r.db, r.sandbox);
    let forgotten: ForgottenSecrets;
    try {
      forgotten = await platform.admin.forgetSecrets();
    } finally {
      await platform.close();
    }
    const { signingKeys, ssoClientSecrets, mails, passwords, webhooks, authenticatorApps: apps } = forgotten;
    const sso = ssoClientSecrets.length
      ? ` Single sign-on of ${ssoClientSecrets.join(', ')} needs its client secret again: plat sso set … --client-secret-stdin.`
      : '';
    return done(
      `Discarded the sealed secrets of ${shownDb(r.db)}: ${signingKeys} signing ${signingKeys === 1 ? 'key' : 'keys'} retired ` +
        `(access tokens they signed stop working; sessions go on, refreshed with a new key), ` +
        `${ssoClientSecrets.length} SSO client ${ssoClientSecrets.length === 1 ? 'secret' : 'secrets'} cleared, ` +
        `${mails} ${mails === 1 ? "mail's" : "mails'"} text and links discarded (resend invitations for new links)` +
        (passwords
          ? `, ${passwords} imported Firebase password ${passwords === 1 ? 'hash' : 'hashes'} cleared (those users ` +
            'need a new password: remove and invite them again)'
          : '') +
        (webhooks
          ? `, ${webhooks} webhook ${webhooks === 1 ? "endpoint's" : "endpoints'"} secrets discarded (disabled: ` +
            'plat webhooks rotate-secret, then plat webhooks update --enable)'
          : '') +
        (apps
          ? `, ${apps} authenticator ${apps === 1 ? 'app' : 'apps'} (second factors) removed (those users enroll ` +
            'again: plat mfa enroll totp)'
          : '') +
        `.${sso}`,
    );
  },
});

/** `plat local mail --delivery`: the mailbox with where each mail stands with the SMTP sender. */
const mailDeliveryView = {
  columns: [
    col('ID', 'id'),
    col('TO', 'to'),
    col('SUBJECT', 'subject'),
    { header: 'DELIVERY', get: (r: { delivery: Delivery }) => r.delivery.status, status: true },
    { header: 'ATTEMPTS', get: (r: { delivery: Delivery }) => r.delivery.attempts },
    {
      header: 'WHEN',
      get: (r: { delivery: Delivery }) => r.delivery.sentAt ?? r.delivery.failedAt ?? r.delivery.nextAttemptAt,
    },
    { header: 'LAST ERROR', get: (r: { delivery: Delivery }) => r.delivery.lastError },
  ],
};

const mail = verb<{ to?: string; limit?: number; delivery: boolean }>({
  name: 'mail',
  summary: "The embedded platform's mailbox (invitations and other e-mail), newest first",
  examples: [
    'plat local mail',
    'plat local mail --to ada@example.com --limit 1 --json',
    'plat local mail --delivery   # what plat serve --smtp-url sent, is retrying, gave up',
  ],
  options: (c) => {
    c.option('--to <email>', 'only messages to this address');
    c.option('--limit <n>', 'at most this many messages', positiveInt);
    c.option(
      '--delivery',
      'also show where each message stands with the SMTP sender of plat serve --smtp-url: queued, sending, sent or failed',
    );
  },
  parse: (_args, o) => ({ to: o.to, limit: o.limit, delivery: o.delivery === true }),
  run: async (o, ctx) => {
    const r = await embedded(ctx, 'local mail');
    const view = o.delivery ? mailDeliveryView : mailView;
    if (!isDatabaseUrl(r.db) && !existsSync(r.db)) return listOf([], view);
    const platform = await openPlatform(ctx, r.db, r.sandbox);
    let mails: (Mail & { delivery?: Delivery })[];
    try {
      mails = await platform.admin.mailbox({ to: o.to, limit: o.limit, delivery: o.delivery });
    } finally {
      await platform.close();
    }
    // Links made in-process point where `plat serve` listens by default: nothing answers there until it runs.
    const { DEFAULT_PUBLIC_URL } = await platformModule();
    if (mails.some((m) => m.links.some((l) => l.startsWith(`${DEFAULT_PUBLIC_URL}/`)))) {
      notice(
        ctx,
        `The links open once the platform is served at ${DEFAULT_PUBLIC_URL}: run plat serve (in another terminal).`,
      );
    }
    return listOf(mails, view);
  },
});

const path = verb<Record<string, never>>({
  name: 'path',
  summary: "The embedded platform's database file",
  examples: ['plat local path', 'sqlite3 "$(plat local path)" .tables'],
  parse: () => ({}),
  run: async (_o, ctx) => {
    const instead = 'it has no file; connect to it with psql (or another PostgreSQL client) instead';
    return { kind: 'text', text: `${(await embeddedFile(ctx, 'local path', instead)).db}\n` };
  },
});

/**
 * An administrative operation's refusal (the platform's coded error: its status) as the CLI's failure of that kind,
 * its field named as the command line gave it; anything else as it is.
 */
function refusal(err: unknown, terms: Record<string, string>): unknown {
  const status = (err as { status?: unknown } | null)?.status;
  if (!(err instanceof Error) || err.name !== 'PlatformError' || typeof status !== 'number') return err;
  const message = err.message.replace(/^(\w+): /, (_whole, field: string) => `${terms[field] ?? field}: `);
  return new CliError(failureKindOfStatus(status), message);
}

const verifyDomain = verb<{ domain: string }>({
  name: 'verify',
  args: '<domain>',
  summary:
    "Vouch for a domain of an organization (--org) as the instance's operator, without DNS: air-gapped installs, tests",
  examples: [
    'plat local domains verify acme.com --org acme',
    'plat --database-url "$PLAT_DATABASE_URL" local domains verify acme.com --org org_4f8b2c1d9e7a6b5c3d2e',
  ],
  parse: ([domain]) => ({ domain: domain.trim().replace(/\.$/, '') }),
  run: async (o, ctx) => {
    const r = await embedded(ctx, 'local domains verify');
    if (!isDatabaseUrl(r.db) && !existsSync(r.db)) {
      throw new CliError('not_found', `there is no embedded platform at ${r.db}`);
    }
    if (!r.org) {
      throw new UsageError('local domains verify needs the organization: give --org ORG (its id or slug)');
    }
    const platform = await openPlatform(ctx, r.db, r.sandbox);
    try {
      const verified = await platform.admin.verifyDomain(r.org, o.domain);
      notice(ctx, `Vouched for ${verified.domain} as verified by ${verified.organizationId}.`);
      return record(verified, domainView, true);
    } catch (err) {
      throw refusal(err, { domain: `domain ${quoted(o.domain)}` });
    } finally {
      await platform.close();
    }
  },
});

/** `plat local …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [init, reset, forgetSecrets, mail, path]);
  const domains = noun
    .command('domains')
    .description("Domains, as the instance's operator vouches for them (plat domains proves them by DNS)");
  withExamples(domains, ['plat local domains verify acme.com --org acme']);
  addVerbs(domains, ctx, [verifyDomain]);
}
