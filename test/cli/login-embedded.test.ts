import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/contract/permissions.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import {
  authorizeUrlIn,
  OWNER_EMAIL,
  person,
  type SignInServer,
  signInServer,
  storedCredentials,
} from '../helpers/sign-in.js';

/**
 * `plat login --base-url URL` where the profile in use is the embedded one (nothing to sign in to there): the
 * sign-in goes to the server's own profile, found or made, in-process against a real listener.
 */
let s: SignInServer;
let w: CliWorld;
/** The server's profile name as plat derives it: `127.0.0.1-<port>`. */
let serverProfile: string;
beforeAll(async () => {
  s = await signInServer();
  serverProfile = `127.0.0.1-${new URL(s.url).port}`;
});
afterAll(() => s.close());
beforeEach(() => {
  w = cliWorld();
});
afterEach(() => w.cleanup());

/** `plat …login…` with a person signing in at the printed URL. */
async function login(argv: string[], env?: Record<string, string>) {
  const p = person();
  const r = await w.runCli(argv, { onStderr: p.onStderr, env });
  return { ...r, visit: await p.visit() };
}

const config = () => JSON.parse(readFileSync(join(w.configDir, 'config.json'), 'utf8'));

/** What the loopback sign-in prints before the outcome (the URL made stable). */
const WAITING =
  'Open this URL in a browser to sign in:\n  <url>\nWaiting for the browser (up to 5 min; Ctrl-C cancels)…\n';
const stableUrl = (stderr: string) => stderr.replace(authorizeUrlIn(stderr) ?? '<none>', '<url>');

const signedIn = (profile: string, which: string) =>
  `Signed in to ${s.url}/v2 as ${OWNER_EMAIL} (organization ${s.orgId}) under profile "${profile}" (${which} ` +
  `${s.url}/v2); the tokens are stored in <tmp>/config/credentials.json.\n`;
const nowCurrent = (profile: string) =>
  `Profile "${profile}" is now the current one; back to the embedded platform with: plat profiles use local\n`;

const row = (profile: string) =>
  'PROFILE\tENDPOINT\tUSER\tORGANIZATION\tSCOPES\tEXPIRES\tSTORE\n' +
  `${profile}\t${s.url}/v2\t${OWNER_EMAIL}\tAcme (${s.orgId})\t${PERMISSIONS.length}\t2026-01-01T01:00:00.000Z\t<tmp>/config/credentials.json\n`;

describe('plat login --base-url on the embedded profile', () => {
  it('makes a profile for the server, signs in there and makes it current; profiles use local goes back', async () => {
    const r = await login(['login', '--base-url', s.url, '--no-browser']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(row(serverProfile));
    expect(stableUrl(r.stderr)).toBe(WAITING + signedIn(serverProfile, 'new profile for') + nowCurrent(serverProfile));
    expect(config()).toEqual({
      currentProfile: serverProfile,
      profiles: { [serverProfile]: { baseUrl: `${s.url}/v2` } },
    });
    expect(Object.keys(storedCredentials(w.configDir))).toEqual([serverProfile]);

    // The next command goes to the server, with the token.
    expect(await w.runCli(['whoami', '-o', 'ids'])).toMatchObject({ code: 0, stdout: `${s.ownerId}\n`, stderr: '' });
    // And back to the embedded platform (made now, on first use: its own owner).
    expect((await w.runCli(['profiles', 'use', 'local'])).code).toBe(0);
    const local = await w.runCli(['whoami', '-o', 'ids']);
    expect(local).toMatchObject({ code: 0, stdout: 'user_0001\n' });
    expect(local.stderr).toContain('Created the embedded platform at <tmp>/data/local.db');

    // Signing in again to the same server (written another way) reuses its profile: no second one.
    const again = await login(['login', '--base-url', `${s.url}/v2/`, '--no-browser']);
    expect(again.code, again.stderr).toBe(0);
    expect(stableUrl(again.stderr)).toBe(
      WAITING + signedIn(serverProfile, 'the profile for') + nowCurrent(serverProfile),
    );
    expect(config()).toEqual({
      currentProfile: serverProfile,
      profiles: { local: { org: 'org_0001' }, [serverProfile]: { baseUrl: `${s.url}/v2` } },
    });
    expect((await w.runCli(['whoami', '-o', 'ids'])).stdout).toBe(`${s.ownerId}\n`);
  });

  it('reuses an existing profile for that URL, whatever its name, and keeps its organization', async () => {
    expect((await w.runCli(['profiles', 'add', 'team', '--base-url', `${s.url}/v2`, '--org', s.orgId])).code).toBe(0);
    const r = await login(['login', '--base-url', s.url, '--no-browser']);
    expect(r.code, r.stderr).toBe(0);
    expect(stableUrl(r.stderr)).toBe(WAITING + signedIn('team', 'the profile for') + nowCurrent('team'));
    expect(new URL(authorizeUrlIn(r.stderr) as string).searchParams.get('org')).toBe(s.orgId);
    expect(config()).toEqual({ currentProfile: 'team', profiles: { team: { baseUrl: `${s.url}/v2`, org: s.orgId } } });
  });

  it('names the new profile apart from one that holds the name for another URL', async () => {
    expect((await w.runCli(['profiles', 'add', serverProfile, '--base-url', 'http://127.0.0.1:9'])).code).toBe(0);
    const r = await login(['login', '--base-url', s.url, '--no-browser', '--org', s.orgId]);
    expect(r.code, r.stderr).toBe(0);
    const name = `${serverProfile}-2`;
    expect(stableUrl(r.stderr)).toBe(WAITING + signedIn(name, 'new profile for') + nowCurrent(name));
    expect(config()).toEqual({
      currentProfile: name,
      profiles: {
        [serverProfile]: { baseUrl: 'http://127.0.0.1:9/v2' },
        [name]: { baseUrl: `${s.url}/v2`, org: s.orgId },
      },
    });
  });

  it('PLAT_BASE_URL does the same as --base-url', async () => {
    const r = await login(['login', '--no-browser'], { PLAT_BASE_URL: s.url });
    expect(r.code, r.stderr).toBe(0);
    expect(stableUrl(r.stderr)).toBe(WAITING + signedIn(serverProfile, 'new profile for') + nowCurrent(serverProfile));
    expect(config().currentProfile).toBe(serverProfile);
  });

  it('with the embedded profile named (--profile local, PLAT_PROFILE), the same, but the current profile stays', async () => {
    const named = await login(['--profile', 'local', 'login', '--base-url', s.url, '--no-browser']);
    expect(named.code, named.stderr).toBe(0);
    expect(stableUrl(named.stderr)).toBe(
      WAITING +
        signedIn(serverProfile, 'new profile for') +
        `Profile "local" stays in use (from --profile); use this sign-in with --profile ${serverProfile}, ` +
        `or make it the current profile: plat profiles use ${serverProfile}\n`,
    );
    expect(config()).toEqual({ profiles: { [serverProfile]: { baseUrl: `${s.url}/v2` } } });
    expect((await w.runCli(['--profile', serverProfile, 'whoami', '-o', 'ids'])).stdout).toBe(`${s.ownerId}\n`);

    const env = await login(['login', '--base-url', s.url, '--no-browser'], { PLAT_PROFILE: 'local' });
    expect(env.code, env.stderr).toBe(0);
    expect(stableUrl(env.stderr)).toBe(
      WAITING +
        signedIn(serverProfile, 'the profile for') +
        `Profile "local" stays in use (from PLAT_PROFILE); use this sign-in with --profile ${serverProfile}, ` +
        `or make it the current profile: plat profiles use ${serverProfile}\n`,
    );
    expect(config()).toEqual({ profiles: { [serverProfile]: { baseUrl: `${s.url}/v2` } } });
  });

  it('-q leaves out the notices (and the record, as after any change), not the sign-in URL', async () => {
    const r = await login(['-q', 'login', '--base-url', s.url, '--no-browser']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(stableUrl(r.stderr)).toBe(WAITING);
    expect(config().currentProfile).toBe(serverProfile);
  });
});

describe('what plat login on the embedded profile refuses, changing nothing', () => {
  it('without a URL: there is nothing to sign in to (2), and it says how to sign in to a server', async () => {
    expect(await w.runCli(['login'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'plat: profile "local" is the embedded platform: commands use its local API key, so there is nothing to sign ' +
        'in to. To sign in to a server (for instance `plat serve` in another terminal), give its URL: ' +
        'plat login --base-url http://127.0.0.1:8080\n',
    });
  });

  it('--sandbox: which instance of a server the URL is, is unknown (2)', async () => {
    expect(await w.runCli(['--sandbox', 'login', '--base-url', s.url])).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'plat: the embedded profile has no remote sandbox to sign in to; add a profile with both URLs, then sign in ' +
        'to its sandbox: plat profiles add NAME --base-url URL --sandbox-base-url SANDBOX_URL && ' +
        'plat --profile NAME --sandbox login\n',
    });
  });

  it('--db with --base-url (2), a bad URL (2)', async () => {
    expect(await w.runCli(['--db', join(w.dir, 'x.db'), 'login', '--base-url', s.url])).toMatchObject({
      code: 2,
      stderr: 'plat: --db applies to the embedded platform only, but the endpoint is remote (from --base-url)\n',
    });
    expect(await w.runCli(['login', '--base-url', 'ftp://example.com'])).toMatchObject({
      code: 2,
      stderr: 'plat: invalid base URL "ftp://example.com" (--base-url): only http and https are supported\n',
    });
  });

  it('a sign-in that fails makes no profile and leaves the current one', async () => {
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const { port } = srv.address() as { port: number };
    await new Promise((resolve) => srv.close(resolve));
    expect(await w.runCli(['login', '--base-url', `http://127.0.0.1:${port}`, '--no-browser'])).toMatchObject({
      code: 9,
      stdout: '',
      stderr: `plat: discovery at http://127.0.0.1:${port}/v2/auth failed: the server could not be reached (ECONNREFUSED)\n`,
    });
    expect(w.configFiles()).toBe('\n');
  });
});
