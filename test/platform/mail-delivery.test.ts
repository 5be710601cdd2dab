import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlatform, type Platform } from '../../src/platform/index.js';
import { type DeliveryOptions, type MailDelivery, startDelivery } from '../../src/platform/mail/delivery.js';
import { parseSmtpUrl } from '../../src/platform/mail/settings.js';
import { bootstrap } from '../../src/platform/operations/bootstrap.js';
import { sendMail } from '../../src/platform/operations/mail.js';
import { dbColumn } from '../helpers/db.js';
import { baseOf } from '../helpers/internals.js';
import { send } from '../helpers/platform.js';
import { freePort } from '../helpers/ports.js';
import { eventually, PEER_PASSWORD, PEER_USER, type SmtpPeer, startSmtpPeer } from '../helpers/smtp-peer.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The password as it may travel: none of these may reach a log line or the database. */
const SECRET_FORMS = [
  PEER_PASSWORD,
  encodeURIComponent(PEER_PASSWORD),
  Buffer.from(PEER_PASSWORD).toString('base64'),
  Buffer.from(`\0${PEER_USER}\0${PEER_PASSWORD}`).toString('base64'),
];

const urlFor = (port: number, password = PEER_PASSWORD) =>
  `smtp://${encodeURIComponent(PEER_USER)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;

/** A platform on a file of its own (real clock), bootstrapped; `dbPath` to share one. */
async function filePlatform(dbPath?: string): Promise<{ platform: Platform; db: string; orgId: string; key: string }> {
  let db = dbPath;
  if (!db) {
    const dir = mkdtempSync(join(tmpdir(), 'plat-mail-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    db = join(dir, 'platform.db');
  }
  const platform = await createPlatform({
    db,
    publicUrl: 'https://plat.example.test',
    logger: () => {},
    limits: { enabled: false },
  });
  cleanups.push(() => platform.close());
  if (dbPath) return { platform, db, orgId: '', key: '' };
  const made = await bootstrap(baseOf(platform), { orgName: 'Acme', email: 'owner@acme.test', name: 'Olive Owner' });
  return { platform, db, orgId: made.organizationId, key: made.apiKey as string };
}

/** Invites `email` through the API: the invitation's mail is queued in the same transaction. */
async function invite(t: Awaited<ReturnType<typeof filePlatform>>, email: string): Promise<void> {
  const r = await send(
    (req) => t.platform.fetch(req),
    'http://plat.test',
    t.key,
    'POST',
    `/organizations/${t.orgId}/users`,
    {
      body: { email },
    },
  );
  expect(r.status).toBe(201);
}

/** Starts a delivery over `platform`'s outbox with fast timers; its log lines go to `log`. */
async function deliver(
  platform: Platform,
  log: string[],
  opts: Partial<DeliveryOptions> & { port: number; password?: string },
) {
  const base = baseOf(platform);
  const delivery: MailDelivery = await startDelivery(
    { outbox: base.stores.outbox, clock: base.clock, log: (line) => log.push(line) },
    {
      smtp: parseSmtpUrl(urlFor(opts.port, opts.password)),
      from: { name: 'plat', address: 'no-reply@plat.example.test' },
      pollMs: 10,
      ...opts,
      retry: { firstDelayMs: 20, maxDelayMs: 200, ...opts.retry },
    },
  );
  cleanups.push(() => delivery.stop());
  return delivery;
}

const deliveryOf = (platform: Platform, id: string) => {
  const base = baseOf(platform);
  return base.stores.outbox.delivery(id, base.now());
};

function peer(p: Promise<SmtpPeer>): Promise<SmtpPeer> {
  return p.then((started) => {
    cleanups.push(() => started.close());
    return started;
  });
}

/** Nothing secret in the log lines nor in the outbox's recorded errors. */
async function expectNoSecret(log: string[], platform: Platform): Promise<void> {
  const errors = await dbColumn(platform, 'SELECT last_error FROM outbox WHERE last_error IS NOT NULL');
  const text = [...log, ...(errors as string[])].join('\n');
  for (const form of SECRET_FORMS) expect(text).not.toContain(form);
}

describe('delivering the outbox over SMTP', () => {
  it('sends the invitation mails, as queued, once the server accepted them', async () => {
    const smtp = await peer(startSmtpPeer());
    const t = await filePlatform();
    await invite(t, 'ada@example.test');
    await invite(t, 'bob@example.test');
    const mails = await baseOf(t.platform).stores.outbox.list();
    expect(await deliveryOf(t.platform, mails[0]?.id as string)).toMatchObject({ status: 'queued', attempts: 0 });
    const log: string[] = [];
    await deliver(t.platform, log, { port: smtp.port });
    await eventually(
      'both sent',
      async () => smtp.received.length === 2 && (await baseOf(t.platform).stores.outbox.waiting()) === 0,
    );
    expect(smtp.logins.length).toBeGreaterThan(0);
    expect(smtp.logins.every((l) => l.user === PEER_USER && l.ok)).toBe(true);
    for (const mail of mails) {
      const got = smtp.received.find((r) => r.to[0] === mail.to);
      expect(got, mail.to).toBeDefined();
      expect(got?.from).toBe('no-reply@plat.example.test');
      expect(got?.headers.to).toBe(mail.to);
      expect(got?.headers.from).toBe('plat <no-reply@plat.example.test>');
      expect(got?.headers.subject).toBe("You're invited to join Acme");
      expect(got?.headers['message-id']).toBe(`<${mail.id}@plat.example.test>`);
      expect(got?.headers['auto-submitted']).toBe('auto-generated');
      expect(got?.text.trimEnd()).toBe(mail.text.trimEnd());
      expect(got?.text).toContain(`${mail.links[0]}\n`);
      expect(await deliveryOf(t.platform, mail.id)).toMatchObject({
        status: 'sent',
        attempts: 1,
        nextAttemptAt: null,
        failedAt: null,
        lastError: null,
      });
    }
    const display = `smtp://${encodeURIComponent(PEER_USER)}@127.0.0.1:${smtp.port}`;
    expect(log[0]).toBe(
      `Mail: sending the outbox through ${display} as plat <no-reply@plat.example.test>, at most 10 messages a ` +
        'second over 2 connections (2 waiting).',
    );
    expect(log.slice(1).sort()).toEqual(mails.map((m) => `mail ${m.id} to ${m.to}: sent (attempt 1)`).sort());
    await expectNoSecret(log, t.platform);
  });

  it('keeps a mail queued while the server is down, and sends it once when it is back', async () => {
    const port = await freePort();
    const t = await filePlatform();
    await invite(t, 'ada@example.test');
    const [mail] = await baseOf(t.platform).stores.outbox.list();
    const id = mail?.id as string;
    const log: string[] = [];
    await deliver(t.platform, log, { port });
    await eventually('a failed attempt', async () => ((await deliveryOf(t.platform, id))?.attempts ?? 0) >= 2);
    expect(await deliveryOf(t.platform, id)).toMatchObject({
      status: expect.stringMatching(/^(queued|sending)$/),
      lastError: expect.stringContaining('ECONNREFUSED'),
      sentAt: null,
      failedAt: null,
    });
    const smtp = await peer(startSmtpPeer(port));
    await eventually('sent', async () => (await deliveryOf(t.platform, id))?.status === 'sent');
    // Give a duplicate every chance to show up before counting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(smtp.received.map((r) => r.headers['message-id'])).toEqual([`<${id}@plat.example.test>`]);
    expect(log).toContainEqual(expect.stringMatching(/^mail: smtp:\/\/.*@127\.0\.0\.1:\d+ failed \(.*ECONNREFUSED/));
    expect(log).toContainEqual(expect.stringMatching(new RegExp(`^mail ${id} to ada@example.test: attempt 1 failed`)));
    expect(log.at(-1)).toMatch(new RegExp(`^mail ${id} to ada@example.test: sent \\(attempt \\d+\\)$`));
    await expectNoSecret(log, t.platform);
  });

  it('gives up on a mail the server rejects (550) after a bounded number of attempts, and records why', async () => {
    const smtp = await peer(startSmtpPeer(0, { refuse: (a) => a.startsWith('nobody@') }));
    const t = await filePlatform();
    await invite(t, 'nobody@example.test');
    await invite(t, 'ada@example.test');
    const [ok, bad] = await baseOf(t.platform).stores.outbox.list();
    const log: string[] = [];
    const delivery = await deliver(t.platform, log, { port: smtp.port, retry: { rejectedAttempts: 3 } });
    await eventually('given up', async () => (await deliveryOf(t.platform, bad?.id as string))?.status === 'failed');
    await delivery.stop();
    expect(await deliveryOf(t.platform, bad?.id as string)).toEqual({
      status: 'failed',
      attempts: 3,
      nextAttemptAt: null,
      sentAt: null,
      failedAt: expect.any(String),
      lastError: expect.stringMatching(/550 5\.1\.1 no such user/),
    });
    expect(smtp.recipients.filter((r) => r === 'nobody@example.test')).toHaveLength(3);
    expect((await deliveryOf(t.platform, ok?.id as string))?.status).toBe('sent');
    expect(log).toContainEqual(
      expect.stringMatching(new RegExp(`^mail ${bad?.id} to nobody@example.test: rejected, given up after 3 attempts`)),
    );
    // A rejection is the message's, not the server's: the loop never paused for it.
    expect(log.filter((l) => l.startsWith('mail: '))).toEqual([]);
  });

  it('sends each mail once when two servers deliver from one database file', async () => {
    const smtp = await peer(startSmtpPeer(0, { delayMs: 5 }));
    const t = await filePlatform();
    const base = baseOf(t.platform);
    await base.tx(async (base) => {
      for (let i = 0; i < 40; i++) {
        await sendMail(
          base,
          { to: `user${i}@example.test`, subject: `Mail ${i}`, text: `Hello ${i}\n`, links: [] },
          t.orgId,
        );
      }
    });
    const other = await filePlatform(t.db);
    const logA: string[] = [];
    const logB: string[] = [];
    await deliver(t.platform, logA, { port: smtp.port });
    await deliver(other.platform, logB, { port: smtp.port });
    await eventually('all sent', async () => (await base.stores.outbox.waiting()) === 0);
    // Each sends 10 a second at most: both took part.
    const sent = (log: string[]) => log.filter((l) => l.endsWith(': sent (attempt 1)')).length;
    expect(sent(logA)).toBeGreaterThan(0);
    expect(sent(logB)).toBeGreaterThan(0);
    expect(sent(logA) + sent(logB)).toBe(40);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ids = smtp.received.map((r) => r.headers['message-id']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    expect(await dbColumn(t.platform, 'SELECT DISTINCT attempts FROM outbox')).toEqual([1]);
  });

  it('keeps mails queued when the server refuses the credentials, without ever showing the password', async () => {
    const smtp = await peer(startSmtpPeer());
    const t = await filePlatform();
    await invite(t, 'ada@example.test');
    const [mail] = await baseOf(t.platform).stores.outbox.list();
    const wrong = 'wrong:pa ss@word';
    const log: string[] = [];
    await deliver(t.platform, log, { port: smtp.port, password: wrong, retry: { rejectedAttempts: 1 } });
    await eventually('two refused logins', () => smtp.logins.length >= 2);
    expect(await deliveryOf(t.platform, mail?.id as string)).toMatchObject({
      status: expect.stringMatching(/^(queued|sending)$/),
      failedAt: null,
    });
    expect(log).toContainEqual(
      expect.stringMatching(/^mail: smtp:\/\/plat%40example\.test@127\.0\.0\.1:\d+ failed \(.*535/),
    );
    const errors = await dbColumn<string>(t.platform, 'SELECT last_error FROM outbox');
    for (const text of [...log, ...errors]) {
      for (const form of [
        wrong,
        encodeURIComponent(wrong),
        Buffer.from(`\0${PEER_USER}\0${wrong}`).toString('base64'),
      ]) {
        expect(text).not.toContain(form);
      }
    }
  });

  it('abandons a stalled send on stop, and another sender delivers it once the lease is over', async () => {
    const smtp = await peer(startSmtpPeer(0, { stallFirst: true }));
    const t = await filePlatform();
    await invite(t, 'ada@example.test');
    const [mail] = await baseOf(t.platform).stores.outbox.list();
    const log: string[] = [];
    // A lease shorter than a send is lengthened to outlast it: 3 s here, for a send limited to 2 s.
    const first = await deliver(t.platform, log, {
      port: smtp.port,
      leaseMs: 300,
      sendTimeoutMs: 2000,
      stopGraceMs: 50,
    });
    await eventually('the data sent', () => smtp.dataStarted === 1);
    await first.stop();
    expect(log.at(-1)).toBe('mail: 1 in flight abandoned; another server takes them over in 3s');
    expect(await deliveryOf(t.platform, mail?.id as string)).toMatchObject({
      status: 'sending',
      attempts: 1,
      sentAt: null,
    });
    // The second keeps the default lease: a send it is slow to finish is never claimed a second time.
    await deliver(t.platform, log, { port: smtp.port });
    await eventually(
      'sent by the second',
      async () => (await deliveryOf(t.platform, mail?.id as string))?.status === 'sent',
    );
    expect((await deliveryOf(t.platform, mail?.id as string))?.attempts).toBe(2);
    expect(smtp.received).toHaveLength(1);
  });

  it('gives up, without sending, on a mail older than the maximum age', async () => {
    const smtp = await peer(startSmtpPeer());
    const t = await filePlatform();
    const base = baseOf(t.platform);
    const old = new Date(Date.now() - 6 * 24 * 3600_000).toISOString();
    await base.stores.outbox.enqueue({
      id: 'mail_old',
      to: 'a@x.test',
      subject: 's',
      text: 't',
      links: [],
      createdAt: old,
      orgId: null,
    });
    const log: string[] = [];
    await deliver(t.platform, log, { port: smtp.port });
    await eventually('given up', async () => (await deliveryOf(t.platform, 'mail_old'))?.status === 'failed');
    expect((await deliveryOf(t.platform, 'mail_old'))?.lastError).toBe('not sent within 5 days of being written');
    expect(smtp.recipients).toEqual([]);
  });
});
