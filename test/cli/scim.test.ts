import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

/** `plat scim` as an admin meets it: each command a spawned `plat` against a served platform. */
afterAll(cleanUpProcesses);

const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

describe('plat scim', () => {
  it('makes a token and says where to enter it, shows the status of the sync, lists and revokes tokens by name', async () => {
    const serverEnv = processHome('plat-scim');
    const init = JSON.parse((await plat(serverEnv, ['local', 'init', '--json'])).stdout);
    expect((await plat(serverEnv, ['local', 'domains', 'verify', 'acme.test'])).code).toBe(0);
    const server = await servePlat(serverEnv);
    const env = { ...serverEnv, PLAT_BASE_URL: server.url, PLAT_API_KEY: init.apiKey };
    const base = `${server.url}/v2/organizations/${init.organizationId}/scim`;
    const made = await plat(env, ['scim', 'tokens', 'create', 'Okta', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const token = JSON.parse(made.stdout);
    expect(token).toMatchObject({ name: 'Okta', token: expect.stringMatching(/^scim_\w{43}$/) });
    expect(made.stderr).toContain(`SCIM base URL  ${base}\n`);
    // The identity provider provisions someone, and is refused once.
    const headers = { authorization: `Bearer ${token.token}`, 'content-type': 'application/scim+json' };
    const created = await fetch(`${base}/Users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ userName: 'ada@acme.test', displayName: 'Ada' }),
    });
    expect(created.status).toBe(201);
    const refused = await fetch(`${base}/Users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ userName: 'eve@evil.test' }),
    });
    expect(refused.status).toBe(400);
    const status = await plat(env, ['scim', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      baseUrl: base,
      tokens: 1,
      requests: 2,
      failures: 1,
      lastFailure: {
        method: 'POST',
        status: 400,
        scimType: 'invalidValue',
        detail: expect.stringContaining('evil.test'),
      },
      users: 1,
      groups: 0,
    });
    const listed = await plat(env, ['scim', 'tokens', 'list']);
    expect(listed.stdout.split('\n')[0]).toBe('ID\tNAME\tCREATED\tLAST USED');
    expect(listed.stdout).not.toContain(token.token);
    expect(await plat(env, ['scim', 'tokens', 'revoke', 'okta', '--yes'])).toMatchObject({
      code: 0,
      stderr: `Revoked SCIM token okta (${token.id}).\n`,
    });
    expect((await fetch(`${base}/Users`, { headers })).status).toBe(401);
    expect((await plat(env, ['scim', 'tokens', 'revoke', 'Okta', '--yes'])).code).toBe(5);
    // A key that may make tokens but not read the status still gets the secret it made.
    const key = JSON.parse(
      (await plat(env, ['keys', 'create', '--name', 'scim-admin', '--permission', 'sso:write', '--json'])).stdout,
    );
    const narrow = await plat({ ...env, PLAT_API_KEY: key.key }, ['scim', 'tokens', 'create', 'Entra', '--json']);
    expect(narrow.code, narrow.stderr).toBe(0);
    expect(JSON.parse(narrow.stdout).token).toMatch(/^scim_\w{43}$/);
    expect(narrow.stderr).toContain('SCIM base URL  (see plat scim status)');
  });
});
