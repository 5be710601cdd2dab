import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { approveDevice, deviceUrlIn } from '../helpers/sign-in.js';
import { BIN, cleanUpProcesses, type Run, type StartOptions, startProcess } from '../helpers/spawn.js';

/**
 * The README's tour, run as written by bash and by zsh, as a new user would run it: `plat` on the PATH (here a two-line stand-in
 * for the installed command, which runs the built bin/plat.js through its launcher), a home of its own, no display.
 * Only the ports change, to free ones, so that the test does not depend on 8080 and 8081 being free on this machine;
 * and a person approves the sign-in the tour starts, as a person at a browser would.
 */
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const tour = README.slice(README.indexOf('## A short tour'), README.indexOf('## The command line'));
const blocks = [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const OWNER_PASSWORD = 'a tour password, long enough';
/** docs/api.md's walk-through with curl, run as written too. */
const API_GUIDE = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
const curlWalkThrough = API_GUIDE.match(/## Try it with curl\n\n```sh\n([\s\S]*?)```/)?.[1] as string;

const homes: string[] = [];
afterAll(() => {
  cleanUpProcesses();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

/** A fresh home with `plat` on the PATH. */
function home(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'plat-readme-'));
  homes.push(dir);
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'plat'), `#!/bin/sh\nexec sh '${BIN}' "$@"\n`);
  chmodSync(join(dir, 'bin', 'plat'), 0o755);
  const env = {
    PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: dir,
    PLAT_CREDENTIAL_STORE: 'file',
    LANG: 'C.UTF-8',
  };
  return { dir, env };
}

/** Runs one block with a shell (`-e -o pipefail`: a failing command fails the block), then stops what it left running. */
function shell(
  name: string,
  script: string,
  h: { dir: string; env: Record<string, string> },
  opts: StartOptions = {},
): Promise<Run> {
  const args = ['-e', '-o', 'pipefail', '-c', script];
  return startProcess(name, args, h.env, { cwd: h.dir, timeoutMs: 60_000, stopGroupOnExit: true, ...opts }).done;
}

describe.each(['bash', 'zsh'])('the README tour, run as written in %s', (name) => {
  const run = (script: string, h: { dir: string; env: Record<string, string> }, opts: StartOptions = {}) =>
    shell(name, script, h, opts);
  it('has the blocks this test runs', () => {
    expect(blocks.length).toBe(4);
  });

  it('embedded: every command of the first block works on a fresh machine', async () => {
    const h = home();
    const r = await run(blocks[0] as string, h);
    expect(r.stderr).toContain('Created the embedded platform');
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toContain('ada@example.com');
    expect(r.stdout).toContain('payments-api');
  });

  it('serve it, and use it remotely: the key goes from one command to the other, and the second profile works', async () => {
    const h = home();
    expect((await run(blocks[0] as string, h)).code).toBe(0);
    const port = String(await freePort());
    const r = await run((blocks[1] as string).replaceAll('8080', port), h);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toContain('admin@localhost');
    expect(r.stdout).toContain('{"status":"ok"');
    expect(r.stderr).not.toMatch(/plat_live_\w{20,}/);
  });

  it('docs/api.md: the curl walk-through works as written on a fresh machine', async () => {
    const h = home();
    const port = String(await freePort());
    const r = await run(curlWalkThrough.replaceAll('8080', port), h);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    // Its last four commands print the API's answers: health, the users, the changed user, the suspended user.
    const [health, users, patched, suspended] = r.stdout
      .trim()
      .split('\n')
      .slice(-4)
      .map((l) => JSON.parse(l));
    expect(health).toMatchObject({ status: 'ok' });
    expect(users.data.map((u: { email: string }) => u.email)).toEqual(['admin@localhost']);
    expect(patched).toMatchObject({ email: 'ada@example.com', status: 'pending', metadata: { team: 'core' } });
    expect(suspended).toMatchObject({ id: patched.id, status: 'suspended' });
  });

  it('sign in to a server: a password typed (here piped), a server, plat login, and back to the embedded platform', async () => {
    const h = home();
    const port = String(await freePort());
    let approval: Promise<unknown> | undefined;
    const script = `${(blocks[2] as string).replaceAll('8081', port)}\nplat whoami -o ids\n`;
    const r = await run(script, h, {
      input: `${OWNER_PASSWORD}\n`,
      watch: (stderr) => {
        const url = deviceUrlIn(stderr);
        if (url && !approval) approval = approveDevice(url, 'admin@localhost', OWNER_PASSWORD);
      },
    });
    expect(approval, r.stderr).toBeDefined();
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stderr).toContain(`Signed in to http://127.0.0.1:${port}/v2 as admin@localhost`);
    expect(r.stderr).not.toContain(OWNER_PASSWORD);
    // The last command, after `plat profiles use local`, went to the embedded platform: a user of its own.
    const lines = r.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^user_\w+$/);
  });
});
