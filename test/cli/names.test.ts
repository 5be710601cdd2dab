import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { type Served, servedPlatform } from '../helpers/served.js';

/**
 * Names everywhere (docs/cli.md, "Names and ids"): every noun's commands take a name where they take an id — a
 * project's slug, a user's e-mail, a team's name, a key's name, an organization's slug — on the embedded platform and
 * against `plat serve`; one that matches nothing exits 5 naming it, one that matches several exits 2 listing them.
 */

let w: CliWorld;
let plat: (argv: string[], stdin?: string) => ReturnType<CliWorld['runCli']>;
beforeEach(async () => {
  w = cliWorld();
  plat = (argv, stdin) => w.runCli(argv, { stdin });
  await setUp();
});
afterEach(() => w.cleanup());

/** user_0002 ada, user_0003 grace; team_0001 Engineering; proj_0001 billing-api (ids are sequential). */
async function setUp() {
  for (const argv of [
    ['users', 'invite', 'Ada@Example.com', '--name', 'Ada'],
    ['users', 'invite', 'grace@example.com'],
    ['teams', 'create', 'Engineering'],
    ['projects', 'create', 'Billing API'],
  ]) {
    const r = await plat(argv);
    expect(r.code, r.stderr).toBe(0);
  }
}

const ids = async (argv: string[]) => {
  const r = await plat([...argv, '-o', 'ids']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n');
};

describe('names on the embedded platform', () => {
  it('projects by slug: get, update, envs, members, keys --project, archive, delete', async () => {
    expect(await ids(['projects', 'get', 'Billing-API'])).toEqual(['proj_0001']);
    expect(await ids(['projects', 'update', 'billing-api', '--description', 'Invoices'])).toEqual(['proj_0001']);
    expect(await ids(['envs', 'list', 'billing-api'])).toHaveLength(3);
    expect((await plat(['envs', 'set', 'billing-api', 'staging', 'LOG=debug'])).code).toBe(0);
    expect(await ids(['members', 'add', 'billing-api', 'ada@example.com', '--role', 'developer'])).toEqual([
      'user_0002',
    ]);
    expect((await plat(['members', 'update', 'billing-api', 'ADA@example.com', '--role', 'admin'])).code).toBe(0);
    const key = JSON.parse(
      (await plat(['keys', 'create', '--name', 'deploy', '--project', 'billing-api', '--json'])).stdout,
    );
    expect(key.projectIds).toEqual(['proj_0001']);
    expect(await plat(['members', 'remove', 'billing-api', 'ada@example.com', '--yes'])).toMatchObject({
      code: 0,
      stderr: 'Removed ada@example.com (user_0002) from project billing-api (proj_0001).\n',
    });
    expect(JSON.parse((await plat(['projects', 'archive', 'billing-api', '--json'])).stdout).status).toBe('archived');
    expect(await plat(['projects', 'delete', 'billing-api', '--yes'])).toMatchObject({
      code: 0,
      stderr: 'Deleted project billing-api (proj_0001).\n',
    });
    expect(await plat(['projects', 'get', 'billing-api'])).toMatchObject({
      code: 5,
      stdout: '',
      stderr: 'plat: no project "billing-api" in organization Local\n',
    });
    expect((await plat(['envs', 'list', 'billing-api'])).code).toBe(5);
    // What no slug can be is not found either (never the API's refusal of the query).
    for (const ref of ['x'.repeat(101), 'billing api', 'ünïcode']) {
      expect(await plat(['projects', 'get', ref]), ref).toMatchObject({
        code: 5,
        stderr: `plat: no project "${ref}" in organization Local\n`,
      });
    }
    expect(await plat(['users', 'get', `a\u0007@example.com`])).toMatchObject({
      code: 5,
      stderr: 'plat: no user "a\\u0007@example.com" in organization Local\n',
    });
  });

  it('users by e-mail, in any case: get, update, suspend, unsuspend, sessions, delete', async () => {
    expect(await ids(['users', 'get', 'ada@example.com'])).toEqual(['user_0002']);
    expect(await ids(['users', 'get', 'ADA@EXAMPLE.COM'])).toEqual(['user_0002']);
    expect(await ids(['users', 'update', 'grace@example.com', '--name', 'Grace'])).toEqual(['user_0003']);
    expect(await ids(['users', 'suspend', 'grace@example.com', '--yes'])).toEqual(['user_0003']);
    expect(await ids(['users', 'unsuspend', 'grace@example.com'])).toEqual(['user_0003']);
    expect(await plat(['sessions', 'list', 'admin@localhost', '--json'])).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(await plat(['users', 'delete', 'grace@example.com', '--yes'])).toMatchObject({
      code: 0,
      stderr: 'Deleted user grace@example.com (user_0003).\n',
    });
    // An address no member has, a part of one, and something that is neither an id nor an address.
    for (const [ref, message] of [
      ['grace@example.com', 'no user "grace@example.com" in organization Local'],
      ['example.com', `no user "example.com" in organization Local (give a user's id or e-mail)`],
      ['da@example.com', 'no user "da@example.com" in organization Local'],
    ]) {
      expect(await plat(['users', 'get', ref as string])).toMatchObject({ code: 5, stderr: `plat: ${message}\n` });
    }
  });

  it('teams by name: invite --team, add-member and remove-member (idempotent), members, get, delete', async () => {
    expect((await plat(['users', 'invite', 'alan@example.com', '--team', 'engineering'])).code).toBe(0);
    const added = await plat([
      'teams',
      'add-member',
      'Engineering',
      'ada@example.com',
      'alan@example.com',
      '-o',
      'ids',
    ]);
    expect(added).toMatchObject({
      code: 0,
      stdout: 'user_0002\n',
      stderr: 'alan@example.com is already in team Engineering.\n',
    });
    expect(await ids(['teams', 'members', 'Engineering'])).toEqual(['user_0002', 'user_0004']);
    // One name that matches nobody: nobody is added.
    expect(await plat(['teams', 'add-member', 'Engineering', 'grace@example.com', 'nobody@example.com'])).toMatchObject(
      {
        code: 5,
        stderr: 'plat: no user "nobody@example.com" in organization Local\n',
      },
    );
    expect(await ids(['teams', 'members', 'Engineering'])).toEqual(['user_0002', 'user_0004']);
    // Removing asks (or --yes), and is refused without a terminal to ask on.
    expect((await plat(['teams', 'remove-member', 'Engineering', 'ada@example.com'])).code).toBe(2);
    expect(
      await plat(['teams', 'remove-member', 'Engineering', 'ada@example.com', 'grace@example.com', '--yes']),
    ).toMatchObject({
      code: 0,
      stderr:
        'grace@example.com is not in team Engineering.\nRemoved ada@example.com (user_0002) from team Engineering (team_0001).\n',
    });
    expect(await ids(['teams', 'members', 'engineering'])).toEqual(['user_0004']);
    expect(await ids(['teams', 'get', 'ENGINEERING'])).toEqual(['team_0001']);
    expect(await plat(['teams', 'delete', 'Engineering', '--yes'])).toMatchObject({
      code: 0,
      stderr: 'Deleted team Engineering (team_0001).\n',
    });
    expect(await plat(['users', 'invite', 'eve@example.com', '--team', 'Engineering'])).toMatchObject({
      code: 5,
      stderr: 'plat: no team "Engineering" in organization Local\n',
    });
  });

  it("invitations by the invitee's e-mail, among the pending ones: resend, revoke", async () => {
    expect(await ids(['invitations', 'resend', 'GRACE@example.com'])).toEqual(['inv_0002']);
    expect(await plat(['invitations', 'revoke', 'grace@example.com', '--yes'])).toMatchObject({
      code: 0,
      stderr: 'Revoked invitation grace@example.com (inv_0002).\n',
    });
    expect(await plat(['invitations', 'resend', 'grace@example.com'])).toMatchObject({
      code: 5,
      stderr: 'plat: no pending invitation "grace@example.com" in organization Local\n',
    });
  });

  it('keys by name among the ones not revoked; two of one name are listed (2)', async () => {
    const first = (await ids(['keys', 'create', '--name', 'ci']))[0];
    const second = (await ids(['keys', 'create', '--name', 'ci']))[0];
    const twice = await plat(['keys', 'revoke', 'ci', '--yes']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(
      new RegExp(`^plat: 2 API keys have the name "ci": give one's id\\n  ${second}  plat_live_`),
    );
    expect(twice.stderr).toContain(`\n  ${first}  plat_live_`);
    expect(await plat(['keys', 'revoke', first as string, '--yes'])).toMatchObject({ code: 0 });
    // The revoked one keeps its name but no longer counts: the name is unique again.
    expect(await plat(['keys', 'revoke', 'CI', '--yes'])).toMatchObject({
      code: 0,
      stderr: `Revoked API key CI (${second}).\n`,
    });
    expect(await plat(['keys', 'revoke', 'ci', '--yes'])).toMatchObject({
      code: 5,
      stderr: 'plat: no API key "ci" in organization Local\n',
    });
  });

  it('organizations by slug: --org, PLAT_ORG, orgs get and orgs use', async () => {
    expect(await ids(['orgs', 'get', 'local'])).toEqual(['org_0001']);
    expect(await ids(['--org', 'Local', 'projects', 'list'])).toEqual(['proj_0001']);
    expect((await w.runCli(['projects', 'list', '-o', 'ids'], { env: { PLAT_ORG: 'local' } })).stdout).toBe(
      'proj_0001\n',
    );
    expect(await plat(['orgs', 'use', 'local'])).toMatchObject({ code: 0 });
    // A key that may not list organizations (no org:read) still names its own by slug.
    const key = JSON.parse(
      (await plat(['keys', 'create', '--name', 'ci', '--permission', 'projects:read', '--json'])).stdout,
    ).key;
    const narrow = { PLAT_API_KEY: key, PLAT_ORG: 'local' };
    expect((await w.runCli(['projects', 'list', '-o', 'ids'], { env: narrow })).stdout).toBe('proj_0001\n');
    expect(await plat(['--org', 'acme', 'projects', 'list'])).toMatchObject({
      code: 5,
      stderr: 'plat: no organization "acme" among the ones this credential can act in\n',
    });
  });
});

describe('names against plat serve', () => {
  let served: Served | undefined;
  afterEach(() => served?.close());

  it('are resolved through the API as the embedded platform resolves them', async () => {
    served = await servedPlatform(w, 'plat-cli-names');
    const env = served.env;
    const remote = (argv: string[]) => w.runCli(argv, { env });
    for (const argv of [
      ['users', 'invite', 'ada@example.com'],
      ['teams', 'create', 'Engineering'],
      ['projects', 'create', 'Billing API'],
      ['teams', 'add-member', 'Engineering', 'ada@example.com'],
      ['members', 'add', 'billing-api', 'ada@example.com', '--role', 'viewer'],
      ['keys', 'create', '--name', 'deploy', '--project', 'billing-api'],
    ]) {
      const r = await remote(argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect((await remote(['teams', 'members', 'engineering', '-o', 'ids'])).stdout).toBe('user_0002\n');
    expect((await remote(['members', 'list', 'billing-api', '-o', 'ids'])).stdout).toBe('user_0002\n');
    expect(await remote(['keys', 'revoke', 'deploy', '--yes'])).toMatchObject({ code: 0 });
    expect(await remote(['projects', 'delete', 'billing-api', '--yes'])).toMatchObject({ code: 0 });
    expect(await remote(['users', 'get', 'nobody@example.com'])).toMatchObject({
      code: 5,
      stderr: 'plat: no user "nobody@example.com" in organization Local\n',
    });
  });
});
