import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

/** A key pasted with an ellipsis where its end should be (what a terminal or a chat shows of a long key). */
const ELLIPSIS_KEY = 'plat_live_4fGh8Kq2Lm…';
const CUT = (source: string, what = 'API key', fix = 'paste the whole key') =>
  `plat: the ${what} ${source} contains "…" (U+2026), which cannot be sent in an HTTP header: ${fix}\n`;

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  // The embedded platform exists (its creation notice is not what these tests are about).
  expect((await w.runCli(['users', 'list'])).code).toBe(0);
});
afterEach(() => w.cleanup());
afterAll(cleanUpProcesses);

describe('a credential with a character no HTTP header can carry: exit 3, saying which and from where', () => {
  it('PLAT_API_KEY with an ellipsis, a line break, or an invisible character; the key is never echoed', async () => {
    expect(await w.runCli(['users', 'list'], { env: { PLAT_API_KEY: ELLIPSIS_KEY } })).toMatchObject({
      code: 3,
      stdout: '',
      stderr: CUT('from PLAT_API_KEY'),
    });
    const wrapped = await w.runCli(['users', 'list'], { env: { PLAT_API_KEY: 'plat_live_4fGh8Kq2\nLm9pX' } });
    expect(wrapped).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'plat: the API key from PLAT_API_KEY contains a line break (U+000A), which cannot be sent in an HTTP header: ' +
        'paste the whole key\n',
    });
    expect(wrapped.raw.stderr).not.toContain('4fGh8Kq2');
    expect(await w.runCli(['users', 'list'], { env: { PLAT_API_KEY: 'plat_live_4fGh\u200b8Kq2' } })).toMatchObject({
      code: 3,
      stderr:
        'plat: the API key from PLAT_API_KEY contains an invisible character (U+200B), which cannot be sent in an ' +
        'HTTP header: paste the whole key\n',
    });
  });

  it('PLAT_TOKEN, and PLAT_API_KEY when both are set (the one used)', async () => {
    expect(await w.runCli(['whoami'], { env: { PLAT_TOKEN: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIi…' } })).toMatchObject({
      code: 3,
      stdout: '',
      stderr: CUT('from PLAT_TOKEN', 'access token', 'paste the whole token'),
    });
    const both = { PLAT_API_KEY: ELLIPSIS_KEY, PLAT_TOKEN: 'eyJ.fine.token' };
    expect(await w.runCli(['users', 'list'], { env: both })).toMatchObject({
      code: 3,
      stderr: CUT('from PLAT_API_KEY'),
    });
  });

  it('--api-key-stdin', async () => {
    expect(await w.runCli(['--api-key-stdin', 'users', 'list'], { stdin: `${ELLIPSIS_KEY}\n` })).toMatchObject({
      code: 3,
      stdout: '',
      stderr: CUT('from --api-key-stdin'),
    });
  });

  it('the stored credential (written by an older plat, or by hand)', async () => {
    const file = join(w.configDir, 'credentials.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    saved.profiles.local.apiKey = `${saved.profiles.local.apiKey.slice(0, 20)}…`;
    writeFileSync(file, JSON.stringify(saved), { mode: 0o600 });
    expect(await w.runCli(['users', 'list'])).toMatchObject({
      code: 3,
      stdout: '',
      stderr: CUT(`stored for "local" in <tmp>/config/credentials.json`, 'API key', 'store the whole key again'),
    });
  });

  it('profiles add --api-key-stdin refuses it and changes nothing', async () => {
    const before = w.configFiles();
    const r = await w.runCli(['profiles', 'add', 'staging', '--base-url', 'http://127.0.0.1:9', '--api-key-stdin'], {
      stdin: ELLIPSIS_KEY,
    });
    expect(r).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'plat: the API key to store for "staging" contains "…" (U+2026), which cannot be sent in an HTTP header: paste the whole key\n',
    });
    expect(w.configFiles()).toBe(before);
  });

  it('in --json, the CLI error object', async () => {
    const r = await w.runCli(['users', 'list', '--json'], { env: { PLAT_API_KEY: ELLIPSIS_KEY } });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: 'authentication_failed',
        message: CUT('from PLAT_API_KEY').slice('plat: '.length, -1),
        status: null,
      },
    });
  });

  it('whitespace around a key is dropped, as HTTP does: an echoed key with its newline still works', async () => {
    const key = w.storedKey() as string;
    expect(await w.runCli(['users', 'list', '-o', 'ids'], { env: { PLAT_API_KEY: `${key}\n` } })).toMatchObject({
      code: 0,
      stdout: 'user_0001\n',
      stderr: '',
    });
  });
});

describe('to a remote instance', () => {
  let server: Server;
  let url: string;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is refused before any request, for an API key and a token alike', async () => {
    const remote = (env: Record<string, string>) =>
      w.runCli(['users', 'list', '--org', 'org_1'], { env: { PLAT_BASE_URL: url, ...env } });
    expect(await remote({ PLAT_API_KEY: ELLIPSIS_KEY })).toMatchObject({ code: 3, stderr: CUT('from PLAT_API_KEY') });
    expect(await remote({ PLAT_TOKEN: 'eyJ…' })).toMatchObject({
      code: 3,
      stderr: CUT('from PLAT_TOKEN', 'access token', 'paste the whole token'),
    });
    expect(requests).toBe(0);
  });
});

describe('as its own process', () => {
  const plat = (env: Record<string, string>, argv: string[], input?: string) => startPlat(env, argv, { input }).done;

  it('embedded: PLAT_API_KEY, PLAT_TOKEN and --api-key-stdin', async () => {
    const env = processHome('plat-badkey');
    expect((await plat(env, ['local', 'init'])).code).toBe(0);
    expect(await plat({ ...env, PLAT_API_KEY: ELLIPSIS_KEY }, ['users', 'list'])).toMatchObject({
      code: 3,
      stdout: '',
      stderr: CUT('from PLAT_API_KEY'),
    });
    const wrapped = await plat({ ...env, PLAT_API_KEY: 'plat_live_4fGh8Kq2\nLm9pX' }, ['users', 'list']);
    expect(wrapped).toMatchObject({ code: 3, stdout: '' });
    expect(wrapped.stderr).toBe(
      'plat: the API key from PLAT_API_KEY contains a line break (U+000A), which cannot be sent in an HTTP header: ' +
        'paste the whole key\n',
    );
    expect(await plat({ ...env, PLAT_TOKEN: 'eyJ…' }, ['whoami'])).toMatchObject({
      code: 3,
      stderr: CUT('from PLAT_TOKEN', 'access token', 'paste the whole token'),
    });
    expect(await plat(env, ['--api-key-stdin', 'users', 'list'], ELLIPSIS_KEY)).toMatchObject({
      code: 3,
      stderr: CUT('from --api-key-stdin'),
    });
  });

  it('remote (plat serve): PLAT_API_KEY, and profiles add --api-key-stdin', async () => {
    const server = await servePlat(processHome('plat-badkey-serve'));
    const env = processHome('plat-badkey');
    expect(
      await plat({ ...env, PLAT_BASE_URL: server.url, PLAT_API_KEY: ELLIPSIS_KEY }, [
        'users',
        'list',
        '--org',
        'org_1',
      ]),
    ).toMatchObject({ code: 3, stdout: '', stderr: CUT('from PLAT_API_KEY') });
    expect(
      await plat(env, ['profiles', 'add', 'staging', '--base-url', server.url, '--api-key-stdin'], ELLIPSIS_KEY),
    ).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'plat: the API key to store for "staging" contains "…" (U+2026), which cannot be sent in an HTTP header: paste the whole key\n',
    });
    expect((await plat(env, ['profiles', 'list', '-o', 'ids'])).stdout).toBe('local\n');
    // Nothing reached the server: its log has no request line.
    expect(server.log()).not.toMatch(/\/v2\/organizations/);
  });
});
