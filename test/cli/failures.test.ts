import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  await w.runCli(['users', 'invite', 'ada@example.com']);
});
afterEach(() => w.cleanup());

describe('API errors map to the contract exit codes', () => {
  it('404 → 5', async () => {
    expect(await w.runCli(['users', 'get', 'user_9999'])).toMatchObject({
      code: 5,
      stdout: '',
      stderr: 'plat: user not found [request req_…]\n',
    });
  });

  it('409 → 6', async () => {
    const r = await w.runCli(['users', 'invite', 'ada@example.com']);
    expect(r).toMatchObject({ code: 6, stdout: '' });
    expect(r.stderr).toMatch(/^plat: .+ \[request req_…\]\n$/);
  });

  it('422 → 7, with the field details', async () => {
    expect(await w.runCli(['users', 'invite', 'not-an-email'])).toMatchObject({
      code: 7,
      stdout: '',
      // Named as the command line gave it; --json keeps the API's field.
      stderr: 'plat: e-mail "not-an-email": Invalid email address [request req_…]\n',
    });
    const json = await w.runCli(['users', 'invite', 'not-an-email', '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'validation_error',
      status: 422,
      details: [{ field: 'email', message: 'Invalid email address' }],
    });
  });

  it('7 also for a value the CLI rejects before sending', async () => {
    expect(await w.runCli(['users', 'invite', 'x@example.com', '--role', 'superuser'])).toMatchObject({
      code: 7,
      stdout: '',
      stderr: 'plat: invalid --role "superuser": expected one of owner, admin, member\n',
    });
  });

  it('403 → 4: an organization the credential does not belong to, and a key without the permission', async () => {
    const r = await w.runCli(['--org', 'org_9999', 'users', 'list']);
    expect(r).toMatchObject({ code: 4, stdout: '' });
    expect(r.stderr).toMatch(/^plat: .+ \[request req_…\]\n$/);
    const created = await w.runCli(['keys', 'create', '--name', 'read-only', '--permission', 'users:read', '--json']);
    const key = JSON.parse(created.stdout).key as string;
    const env = { PLAT_API_KEY: key };
    expect((await w.runCli(['users', 'list', '-o', 'ids'], { env })).code).toBe(0);
    expect((await w.runCli(['users', 'invite', 'bob@example.com'], { env })).code).toBe(4);
  });

  it('401 → 3, and 3 without any credential', async () => {
    const r = await w.runCli(['users', 'list'], { env: { PLAT_API_KEY: 'plat_live_notarealkey' } });
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(r.stderr).toMatch(/^plat: .+ \[request req_…\]\n$/);
    expect(await w.runCli(['--base-url', 'http://127.0.0.1:9/v2', 'users', 'list'])).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'plat: no credentials for http://127.0.0.1:9/v2 (from --base-url): set PLAT_API_KEY or PLAT_TOKEN ' +
        "(a profile's stored credential is only sent to the profile's own URL)\n",
    });
  });

  it('--json prints the API error object on stderr', async () => {
    const r = await w.runCli(['users', 'get', 'user_9999', '--json']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'not_found', message: 'user not found', status: 404, requestId: expect.stringMatching(/^req_/) },
    });
  });
});

describe('usage errors → 2', () => {
  it('unknown flag, unknown command, missing argument, bad -o', async () => {
    expect(await w.runCli(['users', 'list', '--bogus'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "plat: unknown option '--bogus'\n",
    });
    expect(await w.runCli(['usres', 'list'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "plat: unknown command 'usres'\n(Did you mean users?)\n",
    });
    expect(await w.runCli(['users', 'get'])).toMatchObject({
      code: 2,
      stderr: "plat: missing required argument 'user'\n",
    });
    expect((await w.runCli(['users', 'list', '-o', 'yaml'])).code).toBe(2);
    expect(await w.runCli(['users', 'list', '--per-page', 'ten'])).toMatchObject({
      code: 2,
      stderr: "plat: option '--per-page <n>' argument 'ten' is invalid. expected a whole number.\n",
    });
  });

  it('a noun without a verb shows its help on stderr', async () => {
    const r = await w.runCli(['projects']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Usage: plat projects \[options\] \[command\]/);
  });

  it('--json usage errors are JSON too', async () => {
    const r = await w.runCli(['users', 'list', '--bogus', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: 'usage_error', message: "unknown option '--bogus'", status: null },
    });
  });
});

describe('transport failures', () => {
  const env = { PLAT_API_KEY: 'plat_live_whatever' };

  it('an unreachable server → 9 after the retries', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const r = await w.runCli(['--base-url', `http://127.0.0.1:${closed}`, 'users', 'list', '--org', 'org_1'], { env });
    expect(r).toMatchObject({
      code: 9,
      stdout: '',
      stderr: `plat: GET http://127.0.0.1:${closed} failed (ECONNREFUSED) after 3 retries\n`,
    });
  });

  describe('a server that always answers 429', () => {
    let server: Server;
    let hits = 0;
    let url = '';
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits++;
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1', 'X-Request-Id': `req_${hits}` });
        res.end(
          JSON.stringify({
            error: { code: 'rate_limit_exceeded', message: 'too many requests', status: 429, requestId: `req_${hits}` },
          }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('→ 8 with the retries reported, and the attempts under --verbose', async () => {
      hits = 0;
      const r = await w.runCli(
        ['--base-url', url, '--org', 'org_1', 'users', 'list', '--max-retries', '2', '--verbose'],
        {
          env,
        },
      );
      expect(hits).toBe(3);
      expect(r.code).toBe(8);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        [
          `→ GET ${url}/v2/organizations/org_1/users?limit=20 · 429 · Nms · request req_1`,
          `→ GET ${url}/v2/organizations/org_1/users?limit=20 · 429 · Nms · request req_2 · attempt 2`,
          `→ GET ${url}/v2/organizations/org_1/users?limit=20 · 429 · Nms · request req_3 · attempt 3`,
          'plat: too many requests (still rate limited after 2 retries) [request req_3]',
          '',
        ].join('\n'),
      );
      expect(r.raw.stderr).not.toContain(env.PLAT_API_KEY);
    });
  });
});

describe('help', () => {
  it('--help, -h and help NOUN print on stdout with exit 0; every verb shows an example', async () => {
    for (const argv of [['--help'], ['help', 'users'], ['users', '-h'], ['users', 'invite', '--help']]) {
      const r = await w.runCli(argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^Usage: plat/);
    }
    expect((await w.runCli(['users', 'invite', '--help'])).stdout).toContain(
      '\nExamples:\n  $ plat users invite ada@example.com --name "Ada Lovelace" --role admin --team Engineering\n',
    );
    expect(await w.runCli(['--version'])).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '', raw: expect.anything() });
  });
});
