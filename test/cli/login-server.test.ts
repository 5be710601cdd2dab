import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/platform/auth/passwords.js';
import { authorizeUrlIn, signInAt } from '../helpers/sign-in.js';
import { BIN, cleanUpProcesses, processHome, type Run, servePlat, startPlat } from '../helpers/spawn.js';

/**
 * A new user's way to a server, every command a spawned `plat` (through the launcher): the server's owner password
 * given without putting it on a command line, then `plat login --base-url` from a machine whose profile is the
 * embedded default, and back.
 */
const OWNER = 'admin@localhost';
const PASSWORD = 'a long enough password for the owner';

let serverEnv: Record<string, string>;
let server: { url: string; log: () => string };
let init: Run;
const ptys: ChildProcess[] = [];

/** The stored password hash of `email` in the embedded database of a home. */
function passwordHash(env: Record<string, string>, email = OWNER): string {
  const db = new Database(join(env.PLAT_DATA_DIR as string, 'local.db'), { readonly: true });
  try {
    return (db.prepare('SELECT password_hash FROM accounts WHERE email = ?').get(email) as { password_hash: string })
      .password_hash;
  } finally {
    db.close();
  }
}

/** `plat …login…` whose printed sign-in URL a person opens, signing in as the server's owner. */
async function login(env: Record<string, string>, argv: string[]): Promise<Run> {
  let visit: Promise<unknown> | undefined;
  const run = startPlat(env, argv, {
    timeoutMs: 60_000,
    watch: (stderr) => {
      const url = authorizeUrlIn(stderr);
      if (url && !visit) visit = signInAt(url, OWNER, PASSWORD);
    },
  });
  const r = await run.done;
  expect(await visit, r.stderr).toMatchObject({ status: 200, code: expect.any(String) });
  return r;
}

beforeAll(async () => {
  expect(existsSync(BIN) && existsSync(new URL('../../dist/bundle/main.js', import.meta.url))).toBe(true);
  serverEnv = processHome('plat-server');
  // As the README has it: printf %s "$PASSWORD" | plat local init --password-stdin
  init = await startPlat(serverEnv, ['local', 'init', '--password-stdin', '--json'], { input: PASSWORD }).done;
  server = await servePlat(serverEnv);
}, 60_000);

afterAll(() => {
  for (const p of ptys) p.kill('SIGKILL');
  cleanUpProcesses();
});

describe('plat local init --password-stdin', () => {
  it('takes the owner password from a pipe (printf %s … |), prints it nowhere, and the owner signs in with it', async () => {
    const db = join(serverEnv.PLAT_DATA_DIR as string, 'local.db');
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toEqual({
      organizationId: expect.stringMatching(/^org_/),
      userId: expect.stringMatching(/^user_/),
      apiKey: expect.stringMatching(/^plat_live_/),
      db,
    });
    expect(init.stderr).toBe(
      `Created the embedded platform at ${db}: organization ${JSON.parse(init.stdout).organizationId}, owner ${OWNER}.\n` +
        `Its API key is stored in ${join(serverEnv.PLAT_CONFIG_DIR as string, 'credentials.json')}.\n`,
    );
    await expect(verifyPassword(PASSWORD, passwordHash(serverEnv))).resolves.toBe(true);
    // The served sign-in page takes it.
    const client = processHome('plat-owner');
    const r = await login(client, ['--profile', 'srv', 'login', '--base-url', server.url, '--no-browser']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nsrv\\t${server.url}/v2\\t${OWNER}\\t`));
    expect(server.log()).not.toContain(PASSWORD);
  }, 60_000);

  it('on a real terminal asks twice, and what is typed is not echoed', async () => {
    const env = processHome('plat-tty');
    // util-linux script(1) runs plat on a pseudo-terminal and copies to its stdout all the terminal shows, echo too.
    const child = spawn('script', ['-qec', `sh '${BIN}' local init --password-stdin`, '/dev/null'], { env });
    ptys.push(child);
    let shown = '';
    const typed: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      // Types the password once each prompt is on the screen, as a person does.
      for (const prompt of [`Password for ${OWNER}: `, 'Repeat the password: ']) {
        if (shown.includes(prompt) && !typed.includes(prompt)) {
          typed.push(prompt);
          child.stdin.write(`${PASSWORD}\r`);
        }
      }
    });
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code, shown).toBe(0);
    expect(shown).toMatch(
      new RegExp(`^Password for ${OWNER}: \\r\\nRepeat the password: \\r\\nCreated the embedded platform at `),
    );
    expect(shown).not.toContain(PASSWORD);
    expect(shown).not.toContain(PASSWORD.slice(0, 8));
    await expect(verifyPassword(PASSWORD, passwordHash(env))).resolves.toBe(true);
  }, 30_000);
});
