import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { eventually, PEER_PASSWORD, PEER_USER, type SmtpPeer, startSmtpPeer } from '../helpers/smtp-peer.js';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

afterAll(cleanUpProcesses);

let w: CliWorld;
let smtp: SmtpPeer;
beforeEach(async () => {
  w = cliWorld();
  smtp = await startSmtpPeer();
});
afterEach(async () => {
  await smtp.close();
  w.cleanup();
});

const PASSWORD_FORMS = [PEER_PASSWORD, encodeURIComponent(PEER_PASSWORD)];
const smtpUrl = (password = PEER_PASSWORD) =>
  `smtp://${encodeURIComponent(PEER_USER)}:${encodeURIComponent(password)}@127.0.0.1:${smtp.port}`;
/** How many mails the database at `path` records as sent. */
function sentCount(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL').pluck().get() as number;
  } finally {
    db.close();
  }
}

/** What logs may show of the URL. */
const shown = () => `smtp://${encodeURIComponent(PEER_USER)}@127.0.0.1:${smtp.port}`;

/**
 * `plat serve --port 0 …` in-process, its platform on the world's clock (and its own logger: the log is asserted);
 * resolves once it listens, with `stop`, which sends the shutdown signal and resolves with what the command printed.
 */
async function serveInProcess(args: string[], env: Record<string, string> = {}) {
  let signal: () => void = () => {};
  let listening: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    listening = resolve;
  });
  const running = w.runCli(['serve', '--port', '0', ...args], {
    env,
    deps: {
      platform: { clock: w.clock, publicUrl: 'http://plat.test' },
      onShutdown: (handler) => {
        signal = handler;
        return () => {};
      },
    },
    onStderr: (text) => {
      if (text.includes('Listening on ')) listening();
    },
  });
  await Promise.race([ready, running.then((r) => Promise.reject(new Error(`serve ended: ${r.stderr}`)))]);
  return {
    stop: () => {
      signal();
      return running;
    },
  };
}

describe('plat serve --smtp-url', () => {
  it('sends the invitations over SMTP from --mail-from, and plat local mail --delivery says so', async () => {
    expect((await w.runCli(['local', 'init', '-q'])).code).toBe(0);
    const { stop } = await serveInProcess(['--smtp-url', smtpUrl(), '--mail-from', 'Acme <no-reply@acme.test>']);
    // Another process's write (here the CLI's own embedded platform on the same file): the server's loop finds it.
    expect((await w.runCli(['users', 'invite', 'ada@example.com', '-q'])).code).toBe(0);
    // Received, then recorded once the server's 250 reached the sender.
    await eventually('the invitation sent', () => sentCount(join(w.dataDir, 'local.db')) === 1);
    const [got] = smtp.received;
    expect(got).toMatchObject({ from: 'no-reply@acme.test', to: ['ada@example.com'] });
    expect(got?.headers).toMatchObject({
      from: 'Acme <no-reply@acme.test>',
      subject: expect.stringMatching(/^You're invited/),
    });
    const mails = JSON.parse((await w.runCli(['local', 'mail', '--delivery', '--json'])).stdout);
    expect(mails).toEqual([
      {
        id: 'mail_0001',
        to: 'ada@example.com',
        subject: got?.headers.subject,
        text: got?.text,
        links: [expect.stringMatching(/^http:\/\/plat\.test\//)],
        createdAt: '2026-01-01T00:00:00.000Z',
        delivery: {
          status: 'sent',
          attempts: 1,
          nextAttemptAt: null,
          sentAt: '2026-01-01T00:00:00.000Z',
          failedAt: null,
          lastError: null,
        },
      },
    ]);
    expect((await w.runCli(['local', 'mail', '--delivery'])).stdout).toBe(
      'ID\tTO\tSUBJECT\tDELIVERY\tATTEMPTS\tWHEN\tLAST ERROR\n' +
        `mail_0001\tada@example.com\t${got?.headers.subject}\tsent\t1\t2026-01-01T00:00:00.000Z\t\n`,
    );
    const r = await stop();
    expect(r.code).toBe(0);
    const lines = r.stderr.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT').split('\n');
    expect(lines).toEqual([
      'Mail: sending the outbox through smtp://plat%40example.test@127.0.0.1:PORT as Acme <no-reply@acme.test>, ' +
        'at most 10 messages a second over 2 connections (0 waiting).',
      'Listening on http://127.0.0.1:PORT/v2 (live, <tmp>/data/local.db); Ctrl-C stops.',
      'mail mail_0001 to ada@example.com: sent (attempt 1)',
      'Shutting down: finishing requests in flight…',
      'Stopped.',
      '',
    ]);
    for (const form of PASSWORD_FORMS) expect(r.raw.stderr + r.raw.stdout).not.toContain(form);
  });

  it('reads PLAT_SMTP_URL and PLAT_MAIL_FROM, the options winning over them', async () => {
    expect((await w.runCli(['local', 'init', '-q'])).code).toBe(0);
    const env = { PLAT_SMTP_URL: smtpUrl(), PLAT_MAIL_FROM: 'Env <env@acme.test>' };
    const first = await serveInProcess(['--smtp-rate', '5', '--smtp-connections', '1'], env);
    const r = await first.stop();
    expect(r.stderr).toContain(
      `through ${shown()} as Env <env@acme.test>, at most 5 messages a second over 1 connection`,
    );
    const second = await serveInProcess(['--smtp-url', smtpUrl(), '--mail-from', 'Opt <opt@acme.test>'], {
      PLAT_SMTP_URL: 'smtp://someone:else@192.0.2.1',
      PLAT_MAIL_FROM: 'Env <env@acme.test>',
    });
    expect((await second.stop()).stderr).toContain(`through ${shown()} as Opt <opt@acme.test>,`);
  });

  it('refuses a bad URL or sender before anything starts (exit 2), never quoting the URL', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [
        ['--smtp-url', 'http://me:S3CRET@mail.example.com'],
        {},
        '--smtp-url cannot be used: its scheme is http://: expected smtp://[USER:PASSWORD@]HOST[:PORT] (STARTTLS ' +
          'when offered) or smtps://… (TLS)',
      ],
      [
        [],
        { PLAT_SMTP_URL: 'smtp://me:S3CRET@mail.example.com/x' },
        'PLAT_SMTP_URL cannot be used: it has a path, a query or a fragment, which plat does not read: expected ' +
          'smtp://[USER:PASSWORD@]HOST[:PORT] (STARTTLS when offered) or smtps://… (TLS)',
      ],
      [
        ['--smtp-url', 'smtp://me:S3CRET@mail.example.com', '--mail-from', 'nobody'],
        {},
        '--mail-from cannot be used: "nobody" is not an e-mail address: expected "Name <address@domain>" or ' +
          'address@domain',
      ],
      [
        ['--mail-from', 'a@b.test'],
        {},
        '--mail-from needs --smtp-url (or PLAT_SMTP_URL): without it, mail is not sent',
      ],
      [['--smtp-rate', '5'], {}, '--smtp-rate needs --smtp-url (or PLAT_SMTP_URL): without it, mail is not sent'],
    ];
    for (const [args, env, message] of cases) {
      const r = await w.runCli(['serve', '--port', '0', ...args], { env });
      expect(r, message).toMatchObject({ code: 2, stdout: '', stderr: `plat: ${message}\n` });
    }
    // Nothing was made: the usage error came first.
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
    const help = await w.runCli(['serve', '--help'], { env: { PLAT_SMTP_URL: smtpUrl() } });
    expect(help.stdout).toContain('--smtp-url <url>');
    for (const form of PASSWORD_FORMS) expect(help.stdout + help.stderr).not.toContain(form);
  });
});

describe('plat serve --smtp-url, as its own process', () => {
  it('delivers what another plat queued, stops on SIGTERM, and logs no password', async () => {
    const env = { ...processHome('plat-serve-smtp'), PLAT_SMTP_URL: smtpUrl() };
    const server = await servePlat(env);
    const invited = await startPlat(env, ['users', 'invite', 'ada@example.com', '-q']).done;
    expect(invited.code).toBe(0);
    await eventually('the invitation received', () => smtp.received.length === 1);
    expect(smtp.received[0]?.headers.from).toBe('plat <no-reply@localhost>');
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const log = server.log();
    expect(log).toMatch(/^mail mail_\w+ to ada@example\.com: sent \(attempt 1\)$/m);
    expect(log).toContain(`Mail: sending the outbox through ${shown()} as plat <no-reply@localhost>`);
    for (const form of PASSWORD_FORMS) expect(log + invited.stderr + invited.stdout).not.toContain(form);
  });
});
