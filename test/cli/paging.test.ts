import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { cleanUpProcesses, processHome, startPlat } from '../helpers/spawn.js';

let w: CliWorld;
beforeEach(() => {
  w = cliWorld();
});
afterEach(() => w.cleanup());
afterAll(cleanUpProcesses);

const sizeError = (flag: string, value: string) =>
  `plat: option '${flag} <n>' argument '${value}' is invalid. expected a whole number from 1 to 100.\n`;

describe('page sizes outside the contract’s 1–100 are refused by the CLI, before anything is done', () => {
  it('--per-page and --limit: 0 and 101 or 500 alike, exit 2, nothing sent, nothing created', async () => {
    for (const [flag, value] of [
      ['--per-page', '0'],
      ['--per-page', '101'],
      ['--per-page', '500'],
      ['--limit', '0'],
      ['--limit', '101'],
      ['--limit', '500'],
    ] as const) {
      const r = await w.runCli(['users', 'list', flag, value]);
      expect(r, `${flag} ${value}`).toMatchObject({ code: 2, stdout: '', stderr: sizeError(flag, value) });
    }
    // Refused while the command line was read: the embedded platform was not even created.
    expect(existsSync(join(w.dataDir, 'local.db'))).toBe(false);
  });

  it('on every paginated list, in --json too; 100 is accepted', async () => {
    for (const argv of [
      ['projects', 'list', '--per-page', '500'],
      ['keys', 'list', '--limit', '500'],
      ['events', 'list', '--limit', '500'],
      ['invitations', 'list', '--per-page', '500'],
      ['teams', 'list', '--limit', '500'],
      ['teams', 'members', 'team_1', '--per-page', '500'],
      ['members', 'list', 'proj_1', '--limit', '500'],
    ]) {
      const flag = argv.at(-2) as string;
      expect(await w.runCli(argv), argv.join(' ')).toMatchObject({ code: 2, stderr: sizeError(flag, '500') });
    }
    const json = await w.runCli(['users', 'list', '--per-page', '500', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: 'usage_error',
        message: "option '--per-page <n>' argument '500' is invalid. expected a whole number from 1 to 100.",
        status: null,
      },
    });
    for (const flag of ['--per-page', '--limit']) {
      expect(await w.runCli(['users', 'list', flag, '100', '-o', 'ids'])).toMatchObject({
        code: 0,
        stdout: 'user_0001\n',
      });
    }
  });
});

describe('as its own process', () => {
  const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

  it('refuses --per-page 500 and --limit 500 as it refuses 0 (exit 2)', async () => {
    const env = processHome('plat-paging');
    for (const [flag, value] of [
      ['--per-page', '500'],
      ['--per-page', '0'],
      ['--limit', '500'],
    ] as const) {
      expect(await plat(env, ['users', 'list', flag, value])).toMatchObject({
        code: 2,
        stdout: '',
        stderr: sizeError(flag, value),
      });
    }
  });
});
