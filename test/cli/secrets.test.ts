import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

let w: CliWorld;
beforeEach(() => {
  w = cliWorld();
});
afterEach(() => w.cleanup());

/** Every command line a session might run, failures and --verbose included. */
const SWEEP: string[][] = [
  ['users', 'invite', 'ada@example.com'],
  ['users', 'list'],
  ['users', 'list', '--all', '--limit', '1'],
  ['users', 'get', 'user_9999'],
  ['users', 'get', 'user_9999', '--json'],
  ['users', 'delete', 'user_0002'],
  ['--org', 'org_9999', 'users', 'list'],
  ['projects', 'create', 'P'],
  ['envs', 'set', 'proj_0001', 'staging', 'A=1'],
  ['keys', 'list'],
  ['keys', 'list', '--json'],
  ['events', 'list', '--json'],
  ['orgs', 'list'],
  ['auth', 'status'],
  ['auth', 'status', '--json'],
  ['auth', 'token'],
  ['whoami'],
  ['whoami', '--json'],
  ['login'],
  ['logout'],
  ['profiles', 'list'],
  ['profiles', 'show', '--json'],
  ['local', 'init'],
  ['local', 'mail', '--json'],
  ['api', 'GET', '/organizations'],
  ['sessions', 'list'],
  ['users', 'list', '--bogus'],
];

it('no secret in anything printed (both modes, --verbose) or in config.json', async () => {
  await w.runCli(['orgs', 'list']);
  const key = w.storedKey() as string;
  expect(key).toMatch(/^plat_live_/);
  const captured: string[] = [];
  for (const argv of SWEEP) {
    for (const tty of [false, true]) {
      const r = await w.runCli(['--verbose', ...argv], { tty });
      captured.push(r.raw.stdout, r.raw.stderr);
    }
  }
  // With the key in the environment, and with a wrong key (the 401 path) too.
  for (const env of [{ PLAT_API_KEY: key }, { PLAT_API_KEY: `${key}x` }, { PLAT_TOKEN: key }]) {
    const r = await w.runCli(['--verbose', 'users', 'list'], { env });
    captured.push(r.raw.stdout, r.raw.stderr);
  }
  const everything = captured.join('\n');
  expect(everything).toContain('→ GET http://embedded.plat/v2/organizations/org_0001/users'); // the sweep did run
  expect(everything).not.toContain(key);
  expect(everything).not.toContain(key.slice(10)); // not even the random part alone
  const configFiles = readdirSync(w.configDir).filter((f) => f !== 'credentials.json');
  expect(configFiles).toEqual(['config.json']);
  for (const f of configFiles) expect(readFileSync(join(w.configDir, f), 'utf8')).not.toContain(key);
});
