import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

let w: CliWorld;
beforeEach(() => {
  w = cliWorld();
});
afterEach(() => w.cleanup());

const HEADER = 'CURRENT\tNAME\tKIND\tENDPOINT\tORG\n';

describe('profiles', () => {
  it('add (key from stdin, not current), list, use, show, remove', async () => {
    const add = await w.runCli(
      ['profiles', 'add', 'prod', '--base-url', 'https://api.example.com', '--org', 'org_P', '--api-key-stdin'],
      {
        stdin: 'plat_live_prodkey\n',
      },
    );
    expect(add).toMatchObject({
      code: 0,
      stdout: `${HEADER}\tprod\tremote\thttps://api.example.com/v2\torg_P\n`,
      stderr: 'Stored the API key in <tmp>/config/credentials.json.\n',
    });
    expect(w.storedKey('prod')).toBe('plat_live_prodkey');
    expect(w.configFiles()).not.toContain('plat_live_prodkey\n"');
    expect(await w.runCli(['profiles', 'list'])).toMatchObject({
      code: 0,
      stdout: `${HEADER}*\tlocal\tembedded\t<tmp>/data/local.db\t\n\tprod\tremote\thttps://api.example.com/v2\torg_P\n`,
      stderr: '',
    });
    expect((await w.runCli(['profiles', 'add', 'prod', '--base-url', 'https://x.test'])).code).toBe(6);
    expect((await w.runCli(['profiles', 'use', 'prod'])).stdout).toBe(
      `${HEADER}*\tprod\tremote\thttps://api.example.com/v2\torg_P\n`,
    );
    expect((await w.runCli(['profiles', 'show', '--json'])).stdout).toBe(
      `${JSON.stringify(
        {
          name: 'prod',
          current: true,
          kind: 'remote',
          endpoint: 'https://api.example.com/v2',
          sandboxEndpoint: null,
          org: 'org_P',
        },
        null,
        2,
      )}\n`,
    );
    expect((await w.runCli(['profiles', 'use', 'nope'])).code).toBe(2);
    expect((await w.runCli(['profiles', 'remove', 'prod'])).code).toBe(2);
    expect(await w.runCli(['profiles', 'remove', 'prod', '-y'])).toMatchObject({
      code: 0,
      stderr: 'Removed profile prod.\n',
    });
    expect(w.storedKey('prod')).toBeUndefined();
    expect((await w.runCli(['profiles', 'list', '-o', 'ids'])).stdout).toBe('local\n');
  });

  it('rejects a bad name (7), a missing or bad --base-url and --db (2)', async () => {
    expect((await w.runCli(['profiles', 'add', 'bad name', '--base-url', 'https://x.test'])).code).toBe(7);
    expect(await w.runCli(['profiles', 'add', 'p'])).toMatchObject({
      code: 2,
      stderr: 'plat: profiles add needs --base-url URL\n',
    });
    expect((await w.runCli(['profiles', 'add', 'p', '--base-url', 'ftp://x'])).code).toBe(2);
    expect((await w.runCli(['profiles', 'add', 'p', '--base-url', 'https://x.test', '--db', 'x.db'])).code).toBe(2);
    await w.runCli(['profiles', 'add', 'p', '--base-url', 'https://x.test']);
    expect(await w.runCli(['--profile', 'p', '--db', 'x.db', 'users', 'list'])).toMatchObject({
      code: 2,
      stderr: 'plat: --db applies to the embedded platform only, but the endpoint is remote (from profile "p")\n',
    });
  });

  it('refuses to remove the embedded default local (2), before asking; plat local reset is the way', async () => {
    const key = (await w.runCli(['orgs', 'list', '-o', 'ids'])).code === 0 ? w.storedKey() : undefined;
    expect(key).toBeDefined();
    const message =
      'plat: profile "local" is the embedded default and cannot be removed; ' +
      'plat local reset deletes the embedded platform and its stored key\n';
    expect(await w.runCli(['profiles', 'remove', 'local', '--yes'])).toMatchObject({ code: 2, stderr: message });
    expect(await w.runCli(['profiles', 'remove', 'local'], { tty: true, stdin: 'y\n' })).toMatchObject({
      code: 2,
      stderr: message,
    });
    expect(w.storedKey()).toBe(key);
    expect(await w.runCli(['orgs', 'list', '-o', 'ids'])).toMatchObject({ code: 0, stdout: 'org_0001\n' });
  });

  it('--db wins over PLAT_BASE_URL: the embedded platform in that file', async () => {
    const r = await w.runCli(['--db', join(w.dir, 'x.db'), 'users', 'list', '-o', 'ids'], {
      env: { PLAT_BASE_URL: 'http://127.0.0.1:59999' },
    });
    expect(r).toMatchObject({ code: 0, stdout: 'user_0001\n' });
    expect(r.stderr).toContain('Created the embedded platform at <tmp>/x.db');
    expect(
      await w.runCli(['--db', 'x.db', '--base-url', 'http://127.0.0.1:59999', 'users', 'list'], {
        env: { PLAT_BASE_URL: 'http://127.0.0.1:59999' },
      }),
    ).toMatchObject({
      code: 2,
      stderr: 'plat: --db applies to the embedded platform only, but the endpoint is remote (from --base-url)\n',
    });
  });
});

describe('auth status', () => {
  it('says what is used and why, never the secret', async () => {
    await w.runCli(['orgs', 'list']);
    const r = await w.runCli(['auth', 'status']);
    expect(r).toMatchObject({
      code: 0,
      stdout:
        'SETTING\tVALUE\tWHY\n' +
        'profile\tlocal\tdefault (no configuration)\n' +
        'endpoint\tembedded <tmp>/data/local.db\tembedded, default database of profile "local"\n' +
        'organization\torg_0001\tfrom profile "local"\n' +
        'credential\tapi key (store)\tstored for "local" in <tmp>/config/credentials.json\n' +
        'store\tfile\t<tmp>/config/credentials.json\n' +
        'rate limit\t6000/min, burst 1000\tplan enterprise of org_0001, per credential\n',
      stderr: '',
    });
    expect(r.raw.stdout).not.toContain(w.storedKey() as string);
  });

  it('environment wins over the profile; --json is an object', async () => {
    await w.runCli(['profiles', 'add', 'prod', '--base-url', 'http://127.0.0.1:9/v2'], { stdin: 'k' });
    const r = await w.runCli(['auth', 'status', '--json'], {
      env: { PLAT_PROFILE: 'prod', PLAT_ORG: 'org_E', PLAT_API_KEY: 'plat_live_fromenv', PLAT_TOKEN: 'tok' },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      profile: { name: 'prod', why: 'from PLAT_PROFILE' },
      endpoint: {
        kind: 'remote',
        url: 'http://127.0.0.1:9/v2',
        db: null,
        sandbox: false,
        why: 'from profile "prod"',
      },
      organization: { id: 'org_E', why: 'from PLAT_ORG' },
      credential: { type: 'api key', source: 'env', why: 'from PLAT_API_KEY (preferred over PLAT_TOKEN)' },
      store: { kind: 'file', location: '<tmp>/config/credentials.json' },
      rateLimit: { value: 'unknown', why: expect.stringContaining('could not ask the server') },
    });
    expect(r.raw.stdout).not.toContain('plat_live_fromenv');
    const token = await w.runCli(['--profile', 'prod', 'auth', 'status', '-o', 'csv'], { env: { PLAT_TOKEN: 'tok' } });
    expect(token.stdout).toContain('credential,access token (env),from PLAT_TOKEN\r\n');
    const none = await w.runCli(['--profile', 'prod', 'auth', 'status']);
    expect(none.stdout).toContain(
      `credential\tnone\tnothing in PLAT_API_KEY, PLAT_TOKEN or <tmp>/config/credentials.json\n`,
    );
  });

  it('--api-key-stdin is used for one command (source: flag)', async () => {
    await w.runCli(['orgs', 'list']);
    const key = w.storedKey() as string;
    const r = await w.runCli(['--api-key-stdin', 'auth', 'status', '-o', 'csv'], { stdin: `${key}\n` });
    expect(r.stdout).toContain('credential,api key (flag),from --api-key-stdin\r\n');
    expect((await w.runCli(['--api-key-stdin', 'users', 'list', '-o', 'ids'], { stdin: `${key}\n` })).stdout).toBe(
      'user_0001\n',
    );
    expect((await w.runCli(['--api-key-stdin', 'users', 'list'], { stdin: 'plat_live_wrong' })).code).toBe(3);
  });

  it('stdin is made only by a command that reads it (the binary makes it on use: process.stdin costs a start)', async () => {
    await w.runCli(['orgs', 'list']);
    const key = w.storedKey() as string;
    let made = 0;
    const stdin = () => {
      made++;
      return Readable.from([`${key}\n`]);
    };
    expect(await w.runCli(['users', 'list', '-o', 'ids'], { deps: { stdin } })).toMatchObject({ code: 0 });
    expect(made).toBe(0);
    const r = await w.runCli(['--api-key-stdin', 'users', 'list', '-o', 'ids'], { deps: { stdin } });
    expect(r).toMatchObject({ code: 0, stdout: 'user_0001\n' });
    expect(made).toBe(1);
  });
});
