import { readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { listenFailure } from '../../src/cli/listen-failure.js';
import { SERVER_LIMITS } from '../../src/platform/server.js';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

afterAll(cleanUpProcesses);

/** A home with its embedded platform already made, so that `serve` prints nothing about making one. */
async function initializedHome(): Promise<Record<string, string>> {
  const env = processHome('plat-serve-failures');
  expect((await startPlat(env, ['local', 'init']).done).code).toBe(0);
  return env;
}

/** Runs `plat serve …` to its end. */
const serve = (env: Record<string, string>, args: string[]) => startPlat(env, ['serve', ...args]).done;

describe('plat serve when it cannot listen (exit 2: the user fixes it with --host or --port)', () => {
  it('says which address is taken and what to do when the port is in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const r = await serve(await initializedHome(), ['--port', String(port)]);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe(
        `plat: cannot listen on 127.0.0.1:${port}: the port is already in use. Stop the program that holds it ` +
          '(another plat serve?), or choose another port with --port N (--port 0 picks any free one).\n',
      );
    } finally {
      blocker.close();
    }
  });

  it('says so when --host is not an address of this machine, or is not a port', async () => {
    const env = await initializedHome();
    // 192.0.2.1 is reserved for documentation (RFC 5737): no machine has it.
    const r = await serve(env, ['--host', '192.0.2.1', '--port', '0']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(
      'plat: cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine. Pass --host 127.0.0.1 ' +
        '(this machine only), --host 0.0.0.0 (every interface) or one of its own addresses.\n',
    );
    expect(await serve(env, ['--port', '70000'])).toMatchObject({
      code: 2,
      stderr: "plat: option '--port <port>' argument '70000' is invalid. expected a port number from 0 to 65535.\n",
    });
  });

  it('says so for a privileged port (EACCES is not reproducible here when tests run as root)', () => {
    const err = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES' });
    expect(listenFailure(err, '0.0.0.0', 80)?.message).toBe(
      'cannot listen on 0.0.0.0:80: permission denied (ports below 1024 need administrator rights on most ' +
        'systems); choose another port with --port N (--port 0 picks any free one).',
    );
    expect(listenFailure(err, '::1', 80)?.message).toMatch(/^cannot listen on \[::1\]:80: /);
    expect(listenFailure(new Error('something else'), '127.0.0.1', 8080)).toBeUndefined();
  });
});

describe('plat serve --max-connections', () => {
  it('closes connections past the cap unanswered, and serves those it holds', async () => {
    const { url } = await servePlat(await initializedHome(), ['--max-connections', '1']);
    const { hostname, port } = new URL(url);
    const held = connect(Number(port), hostname);
    await new Promise((resolve) => held.once('connect', resolve));
    const refused = connect(Number(port), hostname);
    let received = '';
    refused.on('data', (c) => {
      received += c;
    });
    await new Promise((resolve) => refused.once('close', resolve));
    expect(received).toBe('');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      held.on('data', (c) => {
        text += c;
      });
      held.on('close', () => resolve(text));
    });
    held.write('GET /v2/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });

  it("documents the listener's own defaults", () => {
    const reference = readFileSync(new URL('../../docs/cli-reference.md', import.meta.url), 'utf8');
    expect(reference).toContain(`more are closed unanswered (default ${SERVER_LIMITS.maxConnections}) |`);
    expect(reference).toContain(`more are closed unanswered (default ${SERVER_LIMITS.maxConnectionsPerAddress};`);
  });

  it('refuses a trusted proxy that is not an address or a range before it listens, naming where it came from', async () => {
    const env = await initializedHome();
    const flag = await serve(env, ['--port', '0', '--trust-proxy', '10.0.0.0/8, proxy.internal']);
    expect(flag).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'plat: --trust-proxy: not an IP address or CIDR range: "proxy.internal"\n',
    });
    const variable = await serve({ ...env, PLAT_TRUST_PROXY: '10.0.0.0/40' }, ['--port', '0']);
    expect(variable).toMatchObject({
      code: 2,
      stderr: 'plat: PLAT_TRUST_PROXY: not an IP address or CIDR range: "10.0.0.0/40"\n',
    });
    expect(await serve(env, ['--port', '0', '--trust-proxy', ' , '])).toMatchObject({
      code: 2,
      stderr: 'plat: --trust-proxy lists no address\n',
    });
  });
});

describe('plat serve and an internal error', () => {
  it('answers a bare internal_error and logs a stack trace that names the TypeScript source', async () => {
    const env = await initializedHome();
    const server = await servePlat(env);
    // Damage the database under the running server: refreshing a token now fails in SQLite.
    const db = new Database(join(env.PLAT_DATA_DIR as string, 'local.db'));
    db.exec('DROP TABLE refresh_tokens');
    db.close();
    const res = await fetch(`${server.url}/v2/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refreshToken: 'x'.repeat(43), clientId: 'plat-cli' }),
    });
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id');
    // Nothing of the failure reaches the client: no stack, no SQL, no table.
    expect(await res.text()).toBe(
      JSON.stringify({ error: { code: 'internal_error', message: 'internal error', status: 500, requestId } }),
    );
    const log = server.log();
    expect(log).toContain(`internal error (request ${requestId}): SqliteError: no such table: refresh_tokens`);
    // Source-mapped: frames name src/platform/…ts lines, not the minified bundle's columns.
    expect(log).toMatch(/\n {4}at .*\bsrc\/platform\/[\w/-]+\.ts:\d+:\d+\)?\n/);
    // The access log is written once per turn of the event loop, after the response: it may arrive after it.
    const line = new RegExp(`^127\\.0\\.0\\.1 POST /v2/auth/refresh 500 \\d+\\.\\dms ${requestId}$`, 'm');
    while (!line.test(server.log())) await new Promise((r) => setTimeout(r, 10));
  });
});
