import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

const T = '2026-01-01T00:00:00.000Z';
const PROJECT_HEADER = 'ID\tSLUG\tNAME\tSTATUS\tDEFAULT ENV\tCREATED\n';

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  await w.runCli(['users', 'invite', 'ada@example.com', '--name', 'Ada']); // user_0002
  await w.runCli(['projects', 'create', 'Billing API', '--description', 'Invoices, payments']); // proj_0001
});
afterEach(() => w.cleanup());

describe('projects', () => {
  it('create prints the project; list filters; get takes an id or a slug', async () => {
    expect(await w.runCli(['projects', 'create', 'Billing API', '--auto-scaling'])).toMatchObject({
      code: 0,
      stdout: `${PROJECT_HEADER}proj_0002\tbilling-api-2\tBilling API\tactive\tdevelopment\t${T}\n`,
      stderr: '',
    });
    expect(await w.runCli(['projects', 'list', '--search', 'payments', '-o', 'csv'])).toMatchObject({
      code: 0,
      stdout: `ID,SLUG,NAME,STATUS,DEFAULT ENV,CREATED\r\nproj_0001,billing-api,Billing API,active,development,${T}\r\n`,
    });
    expect((await w.runCli(['projects', 'get', 'billing-api-2', '-o', 'ids'])).stdout).toBe('proj_0002\n');
    const byId = JSON.parse((await w.runCli(['projects', 'get', 'proj_0002', '--json'])).stdout);
    expect(byId).toMatchObject({ id: 'proj_0002', settings: { autoScaling: true, defaultEnvironment: 'development' } });
    expect(await w.runCli(['projects', 'get', 'nope'])).toMatchObject({
      code: 5,
      stdout: '',
      stderr: 'plat: no project "nope" in organization Local\n',
    });
  });

  it('shows the detail view on a terminal', async () => {
    const r = await w.runCli(['projects', 'get', 'billing-api'], { tty: true, env: { NO_COLOR: 'yes' } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      [
        '┌───────────────┬──────────────────────────┐',
        '│ ID            │ proj_0001                │',
        '│ SLUG          │ billing-api              │',
        '│ NAME          │ Billing API              │',
        '│ DESCRIPTION   │ Invoices, payments       │',
        '│ STATUS        │ active                   │',
        '│ ORGANIZATION  │ org_0001                 │',
        '│ DEFAULT ENV   │ development              │',
        '│ AUTO SCALING  │ false                    │',
        '│ NOTIFICATIONS │ true                     │',
        `│ CREATED       │ ${T} │`,
        `│ UPDATED       │ ${T} │`,
        '└───────────────┴──────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('update merges settings; archive, unarchive, suspend (asks), resume; 409 on a bad move', async () => {
    expect(
      await w.runCli(['projects', 'update', 'proj_0001', '--default-env', 'staging', '--no-notifications']),
    ).toMatchObject({
      code: 0,
      stdout: `${PROJECT_HEADER}proj_0001\tbilling-api\tBilling API\tactive\tstaging\t${T}\n`,
    });
    const settings = JSON.parse((await w.runCli(['projects', 'get', 'proj_0001', '--json'])).stdout).settings;
    expect(settings).toEqual({ defaultEnvironment: 'staging', autoScaling: false, notificationsEnabled: false });
    expect((await w.runCli(['projects', 'archive', 'proj_0001'])).stdout).toContain('\tarchived\t');
    expect(await w.runCli(['projects', 'suspend', 'proj_0001', '--yes'])).toMatchObject({
      code: 6,
      stdout: '',
      stderr: 'plat: cannot suspend a project that is archived (it must be active) [request req_…]\n',
    });
    expect((await w.runCli(['projects', 'unarchive', 'proj_0001'])).stdout).toContain('\tactive\t');
    expect(await w.runCli(['projects', 'suspend', 'proj_0001'])).toMatchObject({
      code: 2,
      stderr:
        'plat: refusing to suspend project proj_0001 without confirmation: pass --yes (stdin is not a terminal)\n',
    });
    expect((await w.runCli(['projects', 'suspend', 'proj_0001'], { tty: true, stdin: 'yes\n' })).code).toBe(0);
    expect((await w.runCli(['projects', 'resume', 'proj_0001', '-o', 'ids'])).stdout).toBe('proj_0001\n');
  });

  it('delete needs --yes without a terminal and changes nothing without it', async () => {
    expect(await w.runCli(['projects', 'delete', 'proj_0001'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'plat: refusing to delete project proj_0001 with its environments and members without confirmation: ' +
        'pass --yes (stdin is not a terminal)\n',
    });
    expect((await w.runCli(['projects', 'get', 'proj_0001'])).code).toBe(0);
    expect(await w.runCli(['projects', 'delete', 'proj_0001', '--yes'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Deleted project proj_0001.\n',
    });
    expect((await w.runCli(['projects', 'get', 'proj_0001'])).code).toBe(5);
  });
});

describe('members', () => {
  const header = 'USER ID\tEMAIL\tNAME\tROLE\tADDED\n';

  it('add, list, update, remove', async () => {
    expect(await w.runCli(['members', 'add', 'proj_0001', 'user_0002', '--role', 'developer'])).toMatchObject({
      code: 0,
      stdout: `${header}user_0002\tada@example.com\tAda\tdeveloper\t${T}\n`,
      stderr: '',
    });
    expect((await w.runCli(['members', 'add', 'proj_0001', 'user_0002', '--role', 'viewer'])).code).toBe(6);
    expect((await w.runCli(['members', 'update', 'proj_0001', 'user_0002', '--role', 'admin'])).stdout).toBe(
      `${header}user_0002\tada@example.com\tAda\tadmin\t${T}\n`,
    );
    expect((await w.runCli(['members', 'list', 'proj_0001', '-o', 'ids'])).stdout).toBe('user_0002\n');
    expect(await w.runCli(['members', 'remove', 'proj_0001', 'user_0002', '-y'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'Removed user_0002 from project proj_0001.\n',
    });
    expect((await w.runCli(['members', 'list', 'proj_0001'])).stdout).toBe(header);
  });

  it('a bad role is caught before sending (7); --role is required (2)', async () => {
    expect(await w.runCli(['members', 'add', 'proj_0001', 'user_0002', '--role', 'owner'])).toMatchObject({
      code: 7,
      stderr: 'plat: invalid --role "owner": expected one of admin, developer, viewer\n',
    });
    expect(await w.runCli(['members', 'add', 'proj_0001', 'user_0002'])).toMatchObject({
      code: 2,
      stderr: "plat: required option '--role <role>' not specified\n",
    });
  });
});

describe('envs', () => {
  it('list, set, get, unset, promote, create, delete', async () => {
    expect(await w.runCli(['envs', 'list', 'proj_0001'])).toMatchObject({
      code: 0,
      stdout: `NAME\tKEYS\tUPDATED\ndevelopment\t\t${T}\nstaging\t\t${T}\nproduction\t\t${T}\n`,
      stderr: '',
    });
    expect(
      await w.runCli(['envs', 'set', 'proj_0001', 'staging', 'LOG_LEVEL=debug', 'URL=https://x.test/?a=b']),
    ).toMatchObject({
      code: 0,
      stdout: `NAME\tKEYS\tUPDATED\nstaging\tLOG_LEVEL,URL\t${T}\n`,
    });
    expect(JSON.parse((await w.runCli(['envs', 'get', 'proj_0001', 'staging', '--json'])).stdout)).toEqual({
      id: 'env_0002',
      projectId: 'proj_0001',
      name: 'staging',
      config: { LOG_LEVEL: 'debug', URL: 'https://x.test/?a=b' },
      createdAt: T,
      updatedAt: T,
    });
    expect((await w.runCli(['envs', 'promote', 'proj_0001', '--from', 'staging', '--to', 'production'])).stdout).toBe(
      `NAME\tKEYS\tUPDATED\nproduction\tLOG_LEVEL,URL\t${T}\n`,
    );
    expect((await w.runCli(['envs', 'unset', 'proj_0001', 'staging', 'URL'])).stdout).toBe(
      `NAME\tKEYS\tUPDATED\nstaging\tLOG_LEVEL\t${T}\n`,
    );
    expect((await w.runCli(['envs', 'create', 'proj_0001', 'preview', '-o', 'ids'])).stdout).toBe('preview\n');
    expect((await w.runCli(['envs', 'delete', 'proj_0001', 'preview'])).code).toBe(2);
    expect(await w.runCli(['envs', 'delete', 'proj_0001', 'preview', '-y'])).toMatchObject({
      code: 0,
      stderr: 'Deleted environment preview of project proj_0001.\n',
    });
    expect((await w.runCli(['envs', 'delete', 'proj_0001', 'development', '-y'])).code).toBe(6);
  });

  it('rejects malformed pairs and keys (2) and API-invalid names (7)', async () => {
    expect(await w.runCli(['envs', 'set', 'proj_0001', 'staging', 'NOVALUE'])).toMatchObject({
      code: 2,
      stderr: 'plat: expected KEY=VALUE, got "NOVALUE"\n',
    });
    expect((await w.runCli(['envs', 'unset', 'proj_0001', 'staging', 'A=1'])).code).toBe(2);
    expect((await w.runCli(['envs', 'create', 'proj_0001', 'Not A Slug'])).code).toBe(7);
    expect((await w.runCli(['envs', 'promote', 'proj_0001', '--from', 'staging', '--to', 'staging'])).code).toBe(7);
  });
});
