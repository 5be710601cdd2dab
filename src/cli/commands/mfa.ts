import { type Command, Option } from 'commander';
import type { TotpEnrollment, TotpVerified } from '../../contract/mfa.js';
import type { Context } from '../context.js';
import { CliError, NotFoundError, UsageError } from '../errors.js';
import { named, userOrSelf } from '../names.js';
import { isId } from '../organization-slug.js';
import { quoted } from '../output/quote.js';
import { done, list as listOf, type Output, record } from '../output/result.js';
import { notice, outputMode } from '../output/terminal.js';
import { readLine } from '../prompt.js';
import { addVerbs, verb } from '../verb.js';
import { mfaFactorView, recoveryCodesView, totpEnrollmentView, totpVerifiedView } from '../views.js';

// Second factors (docs/mfa.md; docs/cli.md, "Second factor"): a user's list, enrolling an authenticator app (TOTP)
// with the signed-in user's own token, and removing one — one's own, or another user's as a reset.

const U = 'user_8Jq2kX5mN1pR4sT7vW9y';
const F = 'mfa_6Tn3vQ8xLc1Wd5Rk9Hb2';

/** Tries at a code typed on a terminal before giving up (the server allows 5 failures in 15 minutes). */
const TRIES = 3;

/** A factor's id, from its id (`mfa_…`) or its name among the user's factors (exact, else differing in case). */
async function factorId(ctx: Context, user: string, ref: string): Promise<string> {
  if (isId('mfa', ref)) return ref;
  const factors = (await (await ctx.client()).mfa.list(user)).data;
  const exact = factors.filter((f) => f.name === ref);
  const found = exact.length > 0 ? exact : factors.filter((f) => f.name.toLowerCase() === ref.toLowerCase());
  const [only, ...more] = found;
  if (!only) throw new NotFoundError(`no second factor ${quoted(ref)} of user ${user} (give its id or name)`);
  if (more.length > 0) {
    const ids = found.map((f) => `  ${f.id}  ${f.type}  created ${f.createdAt}`).join('\n');
    throw new UsageError(`${found.length} second factors have the name ${quoted(ref)}: give one's id\n${ids}`);
  }
  return only.id;
}

/**
 * A refusal of the API reworded in place: its status, code, request id and `--json` body kept; its field details
 * dropped, when the new message tells them in the command's terms.
 */
function reworded(err: unknown, message: (was: string) => string, told = false): unknown {
  if (err instanceof Error) Object.assign(err, { message: message(err.message), ...(told && { details: undefined }) });
  return err;
}

const kindOf = (err: unknown) => (err as { kind?: string } | null)?.kind;

/** What a refusal says of the one field it names (`the code is not …`), else its message. */
const reasonOf = (err: unknown) =>
  (err as { details?: { message: string }[] }).details?.[0]?.message ?? (err as Error).message;

const list = verb<{ user?: string }>({
  name: 'list',
  summary: "List a user's second factors, oldest first (default: your own; never their secrets)",
  examples: ['plat mfa list', `plat mfa list --user ada@example.com`, `plat mfa list --user ${U} --json`],
  options: (c) => c.option('--user <user>', 'whose factors, by id or e-mail (default: your own)'),
  parse: (_args, o) => ({ user: o.user }),
  run: async (o, ctx) => {
    const user = await userOrSelf(ctx, o.user, 'give --user (id or e-mail)');
    return listOf((await (await ctx.client()).mfa.list(user)).data, mfaFactorView);
  },
});

const remove = verb<{ ref: string; user?: string }>({
  name: 'remove',
  args: '<factor>',
  summary: "Remove a second factor, by id or name (another user's, with --user: a reset)",
  examples: [`plat mfa remove ${F}`, `plat mfa remove ${F} --user ada@example.com --yes`],
  options: (c) => c.option('--user <user>', 'whose factor, by id or e-mail (default: your own)'),
  parse: ([ref], o) => ({ ref, user: o.user }),
  confirm: (o) => `remove second factor ${o.ref}${o.user ? ` of ${o.user}` : ''}`,
  run: async (o, ctx) => {
    const user = await userOrSelf(ctx, o.user, 'give --user (id or e-mail)');
    const id = await factorId(ctx, user, o.ref);
    try {
      await (await ctx.client()).mfa.remove(user, id);
    } catch (err) {
      // The platform's word on an owner's factors stands; a plain "requires sessions:write" gets the rule.
      if (kindOf(err) !== 'forbidden' || o.user === undefined || /owner/.test((err as Error).message)) throw err;
      throw reworded(err, (m) => `${m}: only owners and admins may reset another user's second factors`);
    }
    return done(`Removed second factor ${named(o.ref, id)}${o.user ? ` of ${o.user}` : ''}.`);
  },
});

const recoveryCodes = verb<Record<string, never>>({
  name: 'recovery-codes',
  summary: 'A new set of recovery codes for your account: the earlier ones stop working (docs/mfa.md)',
  examples: ['plat mfa recovery-codes --yes', 'plat mfa recovery-codes --yes --json'],
  parse: () => ({}),
  confirm: () => 'replace your recovery codes (the earlier ones stop working)',
  run: async (_o, ctx) => {
    const answer = await (await ctx.client()).mfa.regenerateRecoveryCodes();
    if (outputMode(ctx.globals()) !== 'table') return record(answer, recoveryCodesView, true);
    notice(
      ctx,
      'Your new recovery codes are below, shown this once: keep them where you keep passwords. The earlier ones no ' +
        'longer work.',
    );
    return { kind: 'text', text: `${answer.recoveryCodes.join('\n')}\n` };
  },
});

interface EnrollOptions {
  name?: string;
  /** Finish an enrolment begun earlier (`--json`): its factor's id. */
  factor?: string;
  code?: string;
  /** Draw the QR code: `--qr` / `--no-qr`; default on a terminal. */
  qr?: boolean;
}

/**
 * Starts an enrolment; a refusal for the credential (an API key, or a session signed in without the account's
 * factor: docs/mfa.md) says how to get one that may enroll.
 */
async function start(ctx: Context, name: string | undefined): Promise<TotpEnrollment> {
  try {
    return await (await ctx.client()).mfa.enrollTotp(name === undefined ? {} : { name });
  } catch (err) {
    if (kindOf(err) !== 'forbidden') throw err;
    const message = (err as Error).message;
    if (/API key/.test(message)) {
      throw reworded(
        err,
        () =>
          'an API key cannot enroll a second factor: its user does, signed in — run plat login, then ' +
          'plat mfa enroll totp',
      );
    }
    if (/without your second factor/.test(message)) {
      throw reworded(
        err,
        () =>
          'this sign-in did not use your second factor: run plat login again (it asks for a code), then ' +
          'plat mfa enroll totp',
      );
    }
    throw err;
  }
}

/** The QR code of an otpauth:// URI for a terminal: light modules as blocks, so that it reads on a dark background. */
async function qrCode(uri: string): Promise<string> {
  const { renderUnicodeCompact } = await import('uqr');
  return renderUnicodeCompact(uri, { ecc: 'L', border: 2 });
}

/** What an authenticator app needs: the QR code (when drawn), the URI, and the secret to type in instead. */
async function showEnrollment(ctx: Context, e: TotpEnrollment, qr: boolean): Promise<void> {
  notice(
    ctx,
    qr
      ? 'Scan this QR code with your authenticator app (or type the secret in), then type the 6-digit code it shows.'
      : 'Add this to your authenticator app (the URI, or the secret typed in), then type the 6-digit code it shows.',
  );
  const drawn = qr ? `${await qrCode(e.otpauthUri)}\n\n` : '';
  ctx.io.out(`${drawn}URI     ${e.otpauthUri}\nSecret  ${e.secret}\n`);
}

/** Asks for a code on the terminal (echoed: a code is good for seconds, and only for this enrolment). */
async function askCode(ctx: Context): Promise<string> {
  ctx.io.stderr.write('Code from the app: ');
  const code = (await readLine(ctx.io.stdin)).trim();
  if (code === '') throw new CliError('usage', 'aborted: no code was typed; the authenticator app is not enrolled');
  return code;
}

/**
 * Verifies the enrolment with the given code, or with codes typed on the terminal: a wrong one (`422`) is said and
 * asked again, up to `TRIES` times; any other refusal (too many failures: `429`) ends it at once.
 */
async function verify(ctx: Context, factor: string, given: string | undefined): Promise<TotpVerified> {
  const client = await ctx.client();
  for (let n = 1; ; n++) {
    const code = given ?? (await askCode(ctx));
    try {
      return await client.mfa.verifyTotp(factor, { code });
    } catch (err) {
      if (given !== undefined || kindOf(err) !== 'invalid') throw err;
      const why = reasonOf(err);
      const left = TRIES - n;
      if (left === 0) {
        throw reworded(
          err,
          () => `${why}; ${TRIES} wrong codes: nothing was enrolled (start again: plat mfa enroll totp)`,
          true,
        );
      }
      ctx.io.err(`plat: ${why}; try again (${left} ${left === 1 ? 'try' : 'tries'} left)`);
    }
  }
}

/** What a finished enrolment prints: the factor; the recovery codes of a first factor, on stdout, this once. */
function enrolled(ctx: Context, v: TotpVerified): Output {
  if (outputMode(ctx.globals()) !== 'table') return record(v, totpVerifiedView, true);
  const what =
    `Enrolled authenticator app ${quoted(v.factor.name)} (${v.factor.id}): signing in with a password now asks ` +
    'for a code from it.';
  if (!v.recoveryCodes) return done(what);
  notice(ctx, what);
  notice(
    ctx,
    'Your recovery codes are below, shown this once: keep them where you keep passwords. Each signs in once in ' +
      'place of a code, should the app be lost (docs/mfa.md).',
  );
  return { kind: 'text', text: `${v.recoveryCodes.join('\n')}\n` };
}

/** What `enroll` enrolls from the command line: an authenticator app. */
const ENROLLABLE = ['totp'] as const;

const enroll = verb<EnrollOptions>({
  name: 'enroll',
  args: '<type>',
  summary: 'Enroll an authenticator app (totp): shows its QR code and otpauth:// URI, then asks for a code from it',
  argValues: [ENROLLABLE],
  examples: [
    'plat mfa enroll totp',
    'plat mfa enroll totp --name "Phone" --no-qr',
    'plat mfa enroll totp --json',
    `plat mfa enroll totp --factor ${F} --code 492039`,
  ],
  options: (c) => {
    c.option('--name <name>', 'what to call it (default: "Authenticator app")');
    c.addOption(new Option('--qr', 'draw the QR code (default: when stdout is a terminal)'));
    c.addOption(new Option('--no-qr', 'do not draw the QR code'));
    c.option('--factor <factor>', 'finish the enrolment begun with --json: its factor id');
    c.option('--code <code>', 'the 6-digit code the app shows (with --factor; else asked on the terminal)');
  },
  parse: ([type], o) => {
    if (!(ENROLLABLE as readonly string[]).includes(type)) {
      throw new UsageError(
        `plat mfa enroll ${type}: the command line enrolls totp (an authenticator app); a passkey is enrolled in a ` +
          'browser (docs/mfa.md)',
      );
    }
    if (o.code !== undefined && o.factor === undefined) {
      throw new UsageError(
        '--code finishes an enrolment begun with --json: give its --factor too (a new enrolment has a new secret)',
      );
    }
    if (o.factor !== undefined && o.name !== undefined) {
      throw new UsageError('--name names a new enrolment: it goes with the enrolment begun without --factor');
    }
    return { name: o.name, factor: o.factor, code: o.code, qr: o.qr };
  },
  fields: (o) => ({ name: '--name', ...(o.code !== undefined && { code: '--code' }) }),
  run: async (o, ctx) => {
    const table = outputMode(ctx.globals()) === 'table';
    if (o.factor === undefined) {
      // A script (-o/--json) gets the secret and finishes with --factor and --code; a person is asked the code here.
      if (table && !ctx.io.stdinTty) {
        throw new UsageError(
          'plat mfa enroll totp asks for a code on a terminal, and stdin is not one: in a script, begin with ' +
            '--json, then finish with --factor FACTOR --code CODE',
        );
      }
      const enrollment = await start(ctx, o.name);
      if (!table) {
        notice(ctx, `Finish with: plat mfa enroll totp --factor ${enrollment.factorId} --code CODE`);
        return record(enrollment, totpEnrollmentView, true);
      }
      await showEnrollment(ctx, enrollment, o.qr ?? ctx.io.stdoutTty);
      return enrolled(ctx, await verify(ctx, enrollment.factorId, undefined));
    }
    if (o.code === undefined && (!table || !ctx.io.stdinTty)) {
      throw new UsageError('--factor without --code asks for the code on a terminal (without -o/--json): add --code');
    }
    return enrolled(ctx, await verify(ctx, o.factor, o.code));
  },
});

/** `plat mfa …` */
export function register(noun: Command, ctx: Context): void {
  addVerbs(noun, ctx, [list, enroll, remove, recoveryCodes]);
}
