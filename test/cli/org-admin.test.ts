import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { type DocumentServer, documentServer, oidcIssuer, samlMetadata } from '../helpers/idp-documents.js';

/** An OpenID provider's discovery document on loopback, for `sso set --protocol oidc`. */
let idp: DocumentServer;
beforeAll(async () => {
  idp = await documentServer();
});
afterAll(() => idp.close());

const T = '2026-01-01T00:00:00.000Z';
const ORG_HEADER = 'ID\tNAME\tSLUG\tPLAN\tCREATED\n';
/** `plat sso set` of a SAML connection to `provider`, before its source and mapping. */
const samlSet = (provider: string) => ['sso', 'set', '--protocol', 'saml', '--provider', provider];

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  await w.runCli(['users', 'invite', 'ada@example.com', '--name', 'Ada']); // user_0002, inv_0001
});
afterEach(() => w.cleanup());

describe('orgs', () => {
  it('list, get, create, update, use', async () => {
    expect(await w.runCli(['orgs', 'list'])).toMatchObject({
      code: 0,
      stdout: `${ORG_HEADER}org_0001\tLocal\tlocal\tenterprise\t${T}\n`,
      stderr: '',
    });
    expect((await w.runCli(['orgs', 'create', 'Second Org'])).stdout).toBe(
      `${ORG_HEADER}org_0002\tSecond Org\tsecond-org\tfree\t${T}\n`,
    );
    expect((await w.runCli(['orgs', 'update', '--name', 'Local Inc'])).stdout).toBe(
      `${ORG_HEADER}org_0001\tLocal Inc\tlocal\tenterprise\t${T}\n`,
    );
    expect((await w.runCli(['orgs', 'get', 'org_0002', '-o', 'ids'])).stdout).toBe('org_0002\n');
    expect(await w.runCli(['orgs', 'use', 'org_0002'])).toMatchObject({
      code: 0,
      stdout: `${ORG_HEADER}org_0002\tSecond Org\tsecond-org\tfree\t${T}\n`,
      stderr: 'Profile "local" now acts in Second Org (org_0002).\n',
    });
    expect((await w.runCli(['orgs', 'get', '-o', 'ids'])).stdout).toBe('org_0002\n');
    expect((await w.runCli(['users', 'list', '-o', 'ids'])).stdout).toBe('user_0001\n');
    expect((await w.runCli(['orgs', 'update', '--plan', 'gold'])).code).toBe(7);
    expect((await w.runCli(['orgs', 'use', 'org_9999'])).code).toBe(4);
  });
});

describe('teams and invitations', () => {
  it('teams create, list, get, members, delete', async () => {
    expect(await w.runCli(['teams', 'create', 'Platform'])).toMatchObject({
      code: 0,
      stdout: `ID\tNAME\tCREATED\nteam_0001\tPlatform\t${T}\n`,
      stderr: '',
    });
    await w.runCli(['users', 'invite', 'bob@example.com', '--team', 'team_0001']);
    expect((await w.runCli(['teams', 'list', '-o', 'ids'])).stdout).toBe('team_0001\n');
    expect((await w.runCli(['teams', 'get', 'team_0001', '--json'])).stdout).toContain('"name": "Platform"');
    expect((await w.runCli(['teams', 'members', 'team_0001'])).stdout).toBe(
      `USER ID\tEMAIL\tNAME\tADDED\nuser_0003\tbob@example.com\t\t${T}\n`,
    );
    expect((await w.runCli(['teams', 'delete', 'team_0001'])).code).toBe(2);
    expect((await w.runCli(['teams', 'delete', 'team_0001', '-y'])).stderr).toBe('Deleted team team_0001.\n');
  });

  it('invitations list, resend, revoke', async () => {
    const row = `inv_0001\tada@example.com\tmember\tpending\tuser_0002\t2026-01-08T00:00:00.000Z\n`;
    const header = 'ID\tEMAIL\tROLE\tSTATUS\tUSER\tEXPIRES\n';
    expect(await w.runCli(['invitations', 'list', '--status', 'pending'])).toMatchObject({
      code: 0,
      stdout: header + row,
      stderr: '',
    });
    expect((await w.runCli(['invitations', 'resend', 'inv_0001'])).stdout).toBe(header + row);
    expect((await w.runCli(['local', 'mail', '-o', 'ids'])).stdout).toBe('mail_0002\nmail_0001\n');
    expect((await w.runCli(['invitations', 'revoke', 'inv_0001', '-y'])).stderr).toBe('Revoked invitation inv_0001.\n');
    expect((await w.runCli(['invitations', 'list', '--status', 'revoked', '-o', 'ids'])).stdout).toBe('inv_0001\n');
    expect((await w.runCli(['invitations', 'list', '--status', 'bogus'])).code).toBe(7);
  });
});

describe('keys', () => {
  it('create shows the secret once; list never does; revoke asks', async () => {
    const created = await w.runCli([
      'keys',
      'create',
      '--name',
      'ci',
      '--permission',
      'projects:read',
      '--expires',
      '2026-12-31',
    ]);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('Store the secret now: it is not shown again.\n');
    const [header, row] = created.stdout.split('\n');
    expect(header).toBe('ID\tNAME\tENV\tSECRET\tEXPIRES');
    expect(row).toMatch(/^key_0002\tci\tlive\tplat_live_[A-Za-z0-9]{38,}\t2026-12-31T00:00:00.000Z$/);
    const secret = row?.split('\t')[3] as string;
    const list = await w.runCli(['keys', 'list']);
    expect(list.stdout).not.toContain(secret);
    expect(list.stdout.split('\n')[0]).toBe('ID\tNAME\tENV\tKEY\tSTATUS\tCREATED\tEXPIRES');
    expect(list.stdout).toContain(
      `key_0002\tci\tlive\t${secret.slice(0, 14)}…${secret.slice(-4)}\tactive\t${T}\t2026-12-31`,
    );
    expect((await w.runCli(['keys', 'revoke', 'key_0002'])).code).toBe(2);
    expect((await w.runCli(['keys', 'revoke', 'key_0002', '-y'])).stderr).toBe('Revoked API key key_0002.\n');
    expect((await w.runCli(['keys', 'list', '-o', 'csv'])).stdout).toContain('key_0002,ci,live,');
    expect((await w.runCli(['users', 'list'], { env: { PLAT_API_KEY: secret } })).code).toBe(3);
  });

  it('rejects an unknown permission and a bad date before sending (7)', async () => {
    expect(await w.runCli(['keys', 'create', '--name', 'x', '--permission', 'root'])).toMatchObject({
      code: 7,
      stderr: expect.stringMatching(/^plat: invalid --permission "root": expected one of org:read, /),
    });
    expect((await w.runCli(['keys', 'create', '--name', 'x', '--expires', 'tomorrow'])).code).toBe(7);
    expect((await w.runCli(['keys', 'create', '--name', 'x', '--env', 'test'])).code).toBe(7);
  });
});

describe('sessions, sso, events', () => {
  it('sessions: an API key has no sessions of its own; revoke-all reports a count', async () => {
    expect(await w.runCli(['sessions', 'list'])).toMatchObject({
      code: 0,
      stdout: 'ID\tUSER\tIP\tUSER AGENT\tLAST ACTIVE\tCURRENT\n',
      stderr: '',
    });
    expect(await w.runCli(['sessions', 'revoke-all', '--user', 'user_0001', '-y'])).toMatchObject({
      code: 0,
      stdout: 'USER\tREVOKED\nuser_0001\t0\n',
    });
    expect((await w.runCli(['sessions', 'revoke', 'sess_9999', '-y'])).code).toBe(5);
    expect((await w.runCli(['sessions', 'revoke-all'])).code).toBe(2);
  });

  it('sso set, get, enable, disable, delete; the client secret comes from stdin and is never shown', async () => {
    expect((await w.runCli(['sso', 'get'])).code).toBe(5);
    const header = 'PROTOCOL\tPROVIDER\tENABLED\tMETADATA URL\tISSUER\tCLIENT ID\tCLIENT SECRET\tATTRIBUTES\tDOMAINS\n';
    const issuer = oidcIssuer(idp);
    const set = await w.runCli(
      ['sso', 'set', '--protocol', 'oidc', '--provider', 'custom-oidc', '--issuer', issuer] //
        .concat(['--client-id', 'plat', '--client-secret-stdin', '--map', 'email=email', '--map', 'name=name']),
      { stdin: 's3cret-value\n' },
    );
    expect(set).toMatchObject({
      code: 0,
      stdout: `${header}oidc\tcustom-oidc\tdisabled\t\t${issuer}\tplat\tset\temail=email,name=name\t\n`,
      stderr: '',
    });
    expect((await w.runCli(['sso', 'enable'])).stdout).toContain('\tenabled\t');
    const json = await w.runCli(['sso', 'get', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ enabled: true, clientSecretSet: true, clientId: 'plat' });
    expect(json.stdout).not.toContain('s3cret-value');
    expect((await w.runCli(['sso', 'disable'])).stdout).toContain('\tdisabled\t');
    expect((await w.runCli(['sso', 'delete', '-y'])).stderr).toBe('Deleted the single sign-on configuration.\n');
  });

  it('sso sp says what to enter at the identity provider, before any configuration exists', async () => {
    expect(await w.runCli(['sso', 'sp'])).toMatchObject({
      code: 0,
      stdout:
        'SP ENTITY ID\tACS URL\tSP METADATA URL\tOIDC REDIRECT URI\n' +
        'http://plat.test/v2/sso/saml/org_0001\thttp://plat.test/v2/sso/saml/org_0001/acs\t' +
        'http://plat.test/v2/sso/saml/org_0001/metadata\thttp://plat.test/v2/sso/oidc/org_0001/callback\n',
      stderr: '',
    });
  });

  it('sso set --allow-idp-initiated --default-role, kept by enable; sso refresh fetches the metadata again', async () => {
    idp.serve('/saml/metadata', { body: samlMetadata({ entityId: `${idp.url}/saml`, ssoUrl: `${idp.url}/saml/sso` }) });
    const set = await w.runCli([
      ...samlSet('custom-saml'),
      ...[
        '--metadata-url',
        `${idp.url}/saml/metadata`,
        '--map',
        'email=mail',
        '--allow-idp-initiated',
        '--default-role',
        'admin',
        '--json',
      ],
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ allowIdpInitiated: true, defaultRole: 'admin', enabled: false });
    const enabled = JSON.parse((await w.runCli(['sso', 'enable', '--json'])).stdout);
    expect(enabled).toMatchObject({ enabled: true, allowIdpInitiated: true, defaultRole: 'admin' });
    idp.serve('/saml/metadata', {
      body: samlMetadata({ entityId: `${idp.url}/saml`, ssoUrl: `${idp.url}/saml/v2/sso` }),
    });
    const refreshed = await w.runCli(['sso', 'refresh', '--json']);
    expect(JSON.parse(refreshed.stdout)).toMatchObject({ idpSsoUrl: `${idp.url}/saml/v2/sso`, enabled: true });
    expect((await w.runCli([...samlSet('okta'), '--map', 'email=m', '--default-role', 'owner'])).code).toBe(7);
  });

  it('sso set reads SAML metadata from a file (checked by the platform: 7 with its reason) and needs a mapping', async () => {
    writeFileSync(join(w.dir, 'bad.xml'), '<EntityDescriptor/>');
    const bad = [...samlSet('okta'), '--metadata-file', 'bad.xml'];
    expect(await w.runCli([...bad, '--map', 'email=mail'])).toMatchObject({
      code: 7,
      stdout: '',
      stderr:
        'plat: --metadata-file bad.xml: the metadata is not SAML 2.0 metadata (no md:EntityDescriptor) [request req_…]\n',
    });
    const xml = samlMetadata({ entityId: 'https://idp.acme.test', ssoUrl: 'https://idp.acme.test/sso' });
    writeFileSync(join(w.dir, 'md.xml'), xml);
    const r = await w.runCli([...samlSet('okta'), '--metadata-file', 'md.xml', '--map', 'email=mail']);
    expect(r.code).toBe(0);
    expect(JSON.parse((await w.runCli(['sso', 'get', '--json'])).stdout)).toMatchObject({
      metadataXml: xml,
      idpEntityId: 'https://idp.acme.test',
    });
    expect(await w.runCli(samlSet('okta'))).toMatchObject({
      code: 2,
      stderr: 'plat: give at least --map email=ATTRIBUTE\n',
    });
    expect((await w.runCli([...samlSet('okta'), '--metadata-file', 'no.xml', '--map', 'email=m'])).stderr).toBe(
      'plat: cannot read no.xml: ENOENT\n',
    );
  });

  it('events list filters by type and walks every page', async () => {
    await w.runCli(['projects', 'create', 'P']);
    expect(await w.runCli(['events', 'list', '--type', 'user.invited'])).toMatchObject({
      code: 0,
      stdout: `ID\tTYPE\tACTOR\tTARGET\tCREATED\nevt_0002\tuser.invited\tapi_key:key_0001\tuser:user_0002\t${T}\n`,
      stderr: '',
    });
    expect((await w.runCli(['events', 'list', '--limit', '1', '--all', '-o', 'ids'])).stdout).toBe(
      'evt_0003\nevt_0002\nevt_0001\n',
    );
    expect((await w.runCli(['events', 'list', '--since', 'yesterday'])).code).toBe(7);
  });
});
