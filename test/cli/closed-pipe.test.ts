import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

/**
 * `plat … | head -1` (docs/cli.md, "Output"): once stdout's reader is gone, plat stops fetching pages, says nothing
 * and exits 0. The number of requests it made (its `--verbose` lines) is the evidence, not a time.
 */
afterAll(cleanUpProcesses);

const USERS = 900;
const PAGE = 10;
/** Pages of the whole listing: the users, the owner, and the last page that says there is no more. */
const FULL = Math.ceil((USERS + 1) / PAGE);

let env: Record<string, string>;
let made: { apiKey: string; organizationId: string };
beforeAll(async () => {
  env = processHome('plat-pipe');
  made = JSON.parse((await startPlat(env, ['local', 'init', '--json']).done).stdout);
  const csv = join(env.HOME as string, 'users.csv');
  writeFileSync(csv, `email\n${Array.from({ length: USERS }, (_, i) => `u${i}@example.com\n`).join('')}`);
  const imported = await startPlat(env, ['users', 'import', csv, '-q'], { timeoutMs: 60_000 }).done;
  expect(imported, imported.stderr).toMatchObject({ code: 0 });
});

/** `plat argv… | head -1`: stdout's reading end is closed as soon as the first bytes arrive. */
function headOne(
  e: Record<string, string>,
  argv: string[],
): Promise<{ code: number | null; first: string; stderr: string }> {
  const child = spawn('sh', [BIN, ...argv], { env: e, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  let [first, stderr] = ['', ''];
  child.stdout.once('data', (chunk: Buffer) => {
    first = chunk.toString();
    child.stdout.destroy();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, first, stderr })));
}

const requests = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('→ GET')).length;

describe('stdout closed early (| head -1)', () => {
  for (const where of ['embedded', 'plat serve'] as const) {
    it(`stops the listing at once, quietly, exit 0 (${where})`, async () => {
      let e = env;
      if (where === 'plat serve') {
        const server = await servePlat(env);
        e = { ...env, PLAT_BASE_URL: server.url, PLAT_API_KEY: made.apiKey, PLAT_ORG: made.organizationId };
      }
      const whole = await startPlat(e, ['--verbose', 'users', 'list', '--all', '--limit', String(PAGE), '-o', 'ids'])
        .done;
      expect(whole.code, whole.stderr).toBe(0);
      expect(whole.stdout.split('\n')).toHaveLength(USERS + 2);
      expect(requests(whole.stderr)).toBe(FULL);

      for (const mode of [['-o', 'ids'], ['--json'], []]) {
        const argv = ['users', 'list', '--all', '--limit', String(PAGE), ...mode];
        const quiet = await headOne(e, argv);
        expect(quiet, mode.join(' ')).toMatchObject({ code: 0, stderr: '' });
        expect(quiet.first.length).toBeGreaterThan(0);
        // With --verbose, its request lines and nothing else: a few pages, not the whole listing (a generous bound:
        // the reader takes its time to close on a loaded machine, and the pages go on meanwhile).
        const counted = await headOne(e, ['--verbose', ...argv]);
        expect(counted.code).toBe(0);
        expect(counted.stderr.split('\n').filter((l) => l && !l.startsWith('→ '))).toEqual([]);
        expect(requests(counted.stderr)).toBeLessThan(FULL / 3);
      }
    });
  }
});

describe('stdout that fails otherwise (a full disk: > /dev/full)', () => {
  /** `plat argv… > /dev/full`. */
  function toFullDisk(argv: string[]): Promise<{ code: number | null; stderr: string }> {
    const full = openSync('/dev/full', 'w');
    const child = spawn('sh', [BIN, ...argv], { env, stdio: ['ignore', full, 'pipe'], timeout: 30_000 });
    closeSync(full);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  }

  it('is a failure, exit 1, saying so — never a success with the output lost', async () => {
    for (const argv of [
      ['users', 'list'],
      ['users', 'list', '--json'],
      ['users', 'list', '--all', '--limit', String(PAGE), '-o', 'ids'],
      ['users', 'export', '--format', 'jsonl'],
      ['users', 'export'],
    ]) {
      expect(await toFullDisk(argv), argv.join(' ')).toEqual({
        code: 1,
        stderr: 'plat: cannot write to stdout: ENOSPC: no space left on device, write\n',
      });
    }
  });
});
