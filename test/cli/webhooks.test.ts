import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/platform/server.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

/**
 * `plat webhooks` (docs/cli.md, "Webhooks"): every verb in-process against the embedded platform, and the round trip
 * of a test event through `plat serve`'s listener to a real receiver on loopback. A secret is printed by `create` and
 * `rotate-secret` only.
 */

let w: CliWorld;
beforeAll(() => {
  w = cliWorld();
});
afterAll(() => w.cleanup());

const json = async (argv: string[]) => {
  const r = await w.runCli([...argv, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('plat webhooks against the embedded platform', () => {
  it('creates an endpoint, prints its secret this once with the hint to keep it; nothing else shows it', async () => {
    const made = await w.runCli(['webhooks', 'create', 'https://hooks.example.com/plat', '--event', 'user.invited']);
    expect(made.code, made.stderr).toBe(0);
    const [header, row] = made.stdout.split('\n');
    expect(header).toBe('ID\tURL\tSECRET');
    const [id, url, secret] = (row as string).split('\t') as [string, string, string];
    expect(id).toMatch(/^wh_\w+$/);
    expect(url).toBe('https://hooks.example.com/plat');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(made.stderr).toContain('Keep the SECRET below where the receiver verifies signatures (docs/webhooks.md)');
    // --json: the whole record, the secret in it; --quiet keeps it too (a secret printed once must not be lost).
    const second = await json([
      'webhooks',
      'create',
      'http://localhost:4000/in',
      '--description',
      'local',
      '--disabled',
    ]);
    expect(second).toEqual({
      id: expect.stringMatching(/^wh_/),
      organizationId: expect.stringMatching(/^org_/),
      url: 'http://localhost:4000/in',
      events: [],
      description: 'local',
      enabled: false,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      secret: expect.stringMatching(/^whsec_/),
    });
    const quiet = await w.runCli(['webhooks', 'create', 'https://quiet.example.com/', '--quiet']);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    expect(quiet.stdout).toMatch(/\twhsec_/);

    const shown = [
      await w.runCli(['webhooks', 'list']),
      await w.runCli(['webhooks', 'list', '--json']),
      await w.runCli(['webhooks', 'get', id, '--json']),
      await w.runCli(['webhooks', 'get', id], { tty: true }),
      await w.runCli(['webhooks', 'update', id, '--description', 'prod', '--json']),
      await w.runCli(['webhooks', 'deliveries', id, '--json']),
    ];
    for (const r of shown) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.raw.stdout + r.raw.stderr).not.toMatch(/whsec_|"secret"/);
    }
    const listed = shown[0]?.stdout.split('\n') ?? [];
    expect(listed[0]).toBe('ID\tURL\tEVENTS\tSTATUS\tDESCRIPTION\tCREATED');
    expect(listed[1]).toBe(`${id}\thttps://hooks.example.com/plat\tuser.invited\tenabled\t\t2026-01-01T00:00:00.000Z`);
    expect(listed[2]).toBe(`${second.id}\thttp://localhost:4000/in\t*\tdisabled\tlocal\t2026-01-01T00:00:00.000Z`);
    // By URL as well as by id.
    expect((await json(['webhooks', 'get', 'https://hooks.example.com/plat'])).id).toBe(id);
  });

  it('refuses a URL the API refuses (7, its 422 message in the command’s terms), a bad --event at once', async () => {
    expect(await w.runCli(['webhooks', 'create', 'http://10.1.2.3/hook'])).toMatchObject({
      code: 7,
      stdout: '',
      stderr: expect.stringMatching(
        new RegExp(
          '^plat: URL "http://10\\.1\\.2\\.3/hook": must be https \\(plain http only to this machine: ' +
            'localhost, 127\\.0\\.0\\.1, ::1\\) \\[request req_…\\]\n$',
        ),
      ),
    });
    const notUrl = await w.runCli(['webhooks', 'create', 'not a url', '--json']);
    expect(notUrl.code).toBe(7);
    expect(JSON.parse(notUrl.stderr)).toMatchObject({
      error: { code: 'validation_error', status: 422, details: [{ field: 'url', message: 'is not a URL' }] },
    });
    expect(await w.runCli(['webhooks', 'create', 'https://x.example.com/', '--event', 'User Invited'])).toMatchObject({
      code: 7,
      stderr: 'plat: --event "User Invited": must be an event type such as user.created\n',
    });
    expect(await w.runCli(['webhooks', 'get', 'wh_nope'])).toMatchObject({ code: 5 });
    expect(await w.runCli(['webhooks', 'get', 'https://nowhere.example.com/'])).toMatchObject({
      code: 5,
      stderr: 'plat: no webhook endpoint "https://nowhere.example.com/" in this organization (give its id or URL)\n',
    });
  });

  it('updates the URL, replaces the event list (--all-events: every type again), enables and disables', async () => {
    const { id } = await json(['webhooks', 'create', 'https://up.example.com/a', '--event', 'user.invited']);
    const changed = await json([
      'webhooks',
      'update',
      id,
      '--url',
      'https://up.example.com/b',
      '--event',
      'user.deleted',
      '--event',
      'project.created',
      '--disable',
    ]);
    expect(changed).toMatchObject({
      url: 'https://up.example.com/b',
      events: ['user.deleted', 'project.created'],
      enabled: false,
    });
    expect(changed).not.toHaveProperty('secret');
    expect(await json(['webhooks', 'update', id, '--all-events', '--enable', '--description', 'x'])).toMatchObject({
      events: [],
      enabled: true,
      description: 'x',
    });
    expect((await json(['webhooks', 'update', id, '--description', ''])).description).toBeNull();
    expect(await w.runCli(['webhooks', 'update', id])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('plat: nothing to change'),
    });
    expect(await w.runCli(['webhooks', 'update', id, '--event', 'a.b', '--all-events'])).toMatchObject({
      code: 2,
      stderr: 'plat: --event and --all-events exclude each other\n',
    });
    expect(await w.runCli(['webhooks', 'update', id, '--url', 'ftp://up.example.com/'])).toMatchObject({
      code: 7,
      stderr: expect.stringContaining('plat: --url "ftp://up.example.com/": must be https'),
    });
  });

  it('rotates the secret (printed once more), tests, lists and retries deliveries, deletes', async () => {
    const made = await json(['webhooks', 'create', 'https://rot.example.com/']);
    const rotated = await w.runCli(['webhooks', 'rotate-secret', made.id, '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const after = JSON.parse(rotated.stdout);
    expect(after.secret).toMatch(/^whsec_/);
    expect(after.secret).not.toBe(made.secret);
    expect(after.previousSecretExpiresAt).toBe('2026-01-02T00:00:00.000Z');
    expect(rotated.stderr).toContain('The old secret signs beside it until 2026-01-02T00:00:00.000Z');

    const tested = await w.runCli(['webhooks', 'test', made.id, '--json']);
    expect(tested.code, tested.stderr).toBe(0);
    const delivery = JSON.parse(tested.stdout);
    expect(delivery).toMatchObject({ webhookId: made.id, type: 'webhook.test', status: 'pending', attempts: 0 });
    expect(tested.stderr).toContain(`Queued a webhook.test event (delivery ${delivery.id})`);
    await w.runCli(['webhooks', 'test', made.id]);
    const listed = await w.runCli(['webhooks', 'deliveries', made.id]);
    expect(listed.stdout.split('\n')[0]).toBe('ID\tEVENT\tTYPE\tSTATUS\tATTEMPTS\tLAST ANSWER\tNEXT ATTEMPT\tCREATED');
    // Its own events (created, secret rotated) were sent to it too: it selects every type.
    const types = listed.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t')[2]);
    // (All at the world's one instant: their order among themselves is the ids'.)
    expect(types.sort()).toEqual(['webhook.created', 'webhook.secret_rotated', 'webhook.test', 'webhook.test']);
    const one = await json(['webhooks', 'deliveries', made.id, '--status', 'pending', '--limit', '1']);
    expect(one).toHaveLength(1);
    expect(await json(['webhooks', 'deliveries', made.id, '--status', 'failed', '--all'])).toEqual([]);
    expect(await w.runCli(['webhooks', 'deliveries', made.id, '--status', 'lost'])).toMatchObject({
      code: 7,
      stderr: 'plat: invalid --status "lost": expected one of pending, delivered, failed\n',
    });

    const retried = await w.runCli(['webhooks', 'retry', made.id, delivery.id, '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ id: delivery.id, status: 'pending' });
    await json(['webhooks', 'update', made.id, '--disable']);
    expect(await w.runCli(['webhooks', 'retry', made.id, delivery.id])).toMatchObject({
      code: 6,
      stderr: expect.stringContaining('plat: this webhook endpoint is disabled: enable it first'),
    });
    expect(await w.runCli(['webhooks', 'retry', made.id, 'dlv_nope'])).toMatchObject({ code: 5 });

    expect(await w.runCli(['webhooks', 'delete', made.id])).toMatchObject({ code: 2, stdout: '' });
    expect(await w.runCli(['webhooks', 'delete', 'https://rot.example.com/', '--yes'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `Deleted webhook endpoint https://rot.example.com/ (${made.id}).\n`,
    });
    expect((await w.runCli(['webhooks', 'get', made.id])).code).toBe(5);
  });
});

/** A receiver on loopback that records each request and answers 200. */
async function receiver(): Promise<{ url: string; got: Promise<{ headers: IncomingHttpHeaders; body: string }> }> {
  let resolve: (got: { headers: IncomingHttpHeaders; body: string }) => void = () => {};
  const got = new Promise<{ headers: IncomingHttpHeaders; body: string }>((r) => {
    resolve = r;
  });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      res.end('ok');
      resolve({ headers: req.headers, body });
      server.close();
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

describe('plat webhooks against plat serve, over a socket', () => {
  let served: { env: Record<string, string>; close(): Promise<void> };
  beforeAll(async () => {
    // On the real clock: the receiver's library checks that a signature is recent.
    const dir = mkdtempSync(join(tmpdir(), 'plat-webhooks-served-'));
    const server = await startServer({ db: join(dir, 'served.db'), port: 0, logger: () => {} });
    const { apiKey } = await server.platform.admin.init();
    served = {
      env: { PLAT_BASE_URL: `${server.url}/v2`, PLAT_API_KEY: apiKey },
      close: async () => {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }, 30_000);
  afterAll(() => served.close());

  it('sends a test event the receiver verifies with the secret create printed; it reads delivered', async () => {
    const hook = await receiver();
    const env = served.env;
    const made = await w.runCli(['webhooks', 'create', hook.url, '--event', 'webhook.test', '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    const { id, secret } = JSON.parse(made.stdout);
    expect((await w.runCli(['webhooks', 'test', id], { env })).code).toBe(0);
    const { headers, body } = await hook.got;
    const signed = new Webhook(secret).verify(body, headers as Record<string, string>);
    expect(signed).toMatchObject({ type: 'webhook.test', data: { target: { type: 'webhook', id } } });
    let deliveries: { status: string; lastStatusCode: number | null }[] = [];
    for (let i = 0; i < 50; i++) {
      deliveries = JSON.parse((await w.runCli(['webhooks', 'deliveries', id, '--json'], { env })).stdout);
      if (deliveries[0]?.status === 'delivered') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(deliveries).toMatchObject([{ status: 'delivered', lastStatusCode: 200, attempts: 1 }]);
    const listed = await w.runCli(['webhooks', 'list', '--json'], { env });
    expect(listed.raw.stdout).not.toContain(secret);
  });
});
