import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

/** `envs get` shows the configuration itself; `keys list` tells an expired key from an active one. */

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  expect((await w.runCli(['projects', 'create', 'Billing API'])).code).toBe(0);
});
afterEach(() => w.cleanup());

describe('envs get', () => {
  it('shows keys and values, sorted by key; -o ids the keys; --json the whole environment', async () => {
    const set = await w.runCli([
      'envs',
      'set',
      'billing-api',
      'staging',
      'LOG_LEVEL=debug',
      'API_URL=https://x.test/a=b',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(await w.runCli(['envs', 'get', 'billing-api', 'staging'])).toMatchObject({
      code: 0,
      stdout: 'KEY\tVALUE\nAPI_URL\thttps://x.test/a=b\nLOG_LEVEL\tdebug\n',
      stderr: '',
    });
    expect((await w.runCli(['envs', 'get', 'billing-api', 'staging', '-o', 'csv'])).stdout).toBe(
      'KEY,VALUE\r\nAPI_URL,https://x.test/a=b\r\nLOG_LEVEL,debug\r\n',
    );
    expect((await w.runCli(['envs', 'get', 'billing-api', 'staging', '-o', 'ids'])).stdout).toBe(
      'API_URL\nLOG_LEVEL\n',
    );
    expect(JSON.parse((await w.runCli(['envs', 'get', 'billing-api', 'staging', '--json'])).stdout)).toMatchObject({
      name: 'staging',
      projectId: 'proj_0001',
      config: { LOG_LEVEL: 'debug', API_URL: 'https://x.test/a=b' },
    });
    const tty = await w.runCli(['envs', 'get', 'billing-api', 'staging'], { tty: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).toMatch(/│ LOG_LEVEL +│ debug +│/);
  });
});

describe('keys list', () => {
  it('says active, expired (at its expiry, as the API refuses it) or revoked', async () => {
    for (const argv of [
      ['keys', 'create', '--name', 'soon', '--expires', '2026-01-02'],
      ['keys', 'create', '--name', 'later', '--expires', '2026-06-01'],
      ['keys', 'create', '--name', 'gone'],
    ]) {
      expect((await w.runCli(argv)).code).toBe(0);
    }
    expect((await w.runCli(['keys', 'revoke', 'gone', '--yes'])).code).toBe(0);
    const states = async () => {
      const csv = (await w.runCli(['keys', 'list', '-o', 'csv'])).stdout.trim().split('\r\n').slice(1);
      return Object.fromEntries(csv.map((line) => line.split(',')).map((c) => [c[1], c[4]]));
    };
    expect(await states()).toEqual({ 'plat local': 'active', soon: 'active', later: 'active', gone: 'revoked' });
    w.clock.set('2026-01-02T00:00:00.000Z');
    expect(await states()).toEqual({ 'plat local': 'active', soon: 'expired', later: 'active', gone: 'revoked' });
  });
});
