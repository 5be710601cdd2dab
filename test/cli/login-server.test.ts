import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/contract/permissions.js';
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

const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

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

/** Replaces the sign-in URL (random state and challenge) in what `login` printed. */
const stable = (stderr: string) => stderr.replace(authorizeUrlIn(stderr) ?? '<none>', '<url>');
const WAITING =
  'Open this URL in a browser to sign in:\n  <url>\nWaiting for the browser (up to 5 min; Ctrl-C cancels)…\n';

/** `whoami --json` → the user and organization a command acted as. */
async function whoami(env: Record<string, string>) {
  const r = await plat(env, ['whoami', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const me = JSON.parse(r.stdout);
  return { type: me.type as string, email: me.user.email as string, org: me.organization.id as string, r };
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

describe('plat login --base-url from the embedded default profile', () => {
  it('signs in to the server under a new profile, which becomes current; profiles use local returns; again reuses it', async () => {
    const env = processHome('plat-client');
    const name = `127.0.0.1-${new URL(server.url).port}`;
    const serverOrg = JSON.parse(init.stdout).organizationId as string;
    const store = join(env.PLAT_CONFIG_DIR as string, 'credentials.json');

    const first = await login(env, ['login', '--base-url', server.url, '--no-browser']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `^PROFILE\\tENDPOINT\\tUSER\\tORGANIZATION\\tSCOPES\\tEXPIRES\\tSTORE\\n` +
          `${name}\\t${server.url}/v2\\t${OWNER}\\tLocal \\(${serverOrg}\\)\\t${PERMISSIONS.length}\\t\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\t${store}\\n$`,
      ),
    );
    expect(stable(first.stderr)).toBe(
      WAITING +
        `Signed in to ${server.url}/v2 as ${OWNER} (organization ${serverOrg}) under profile "${name}" ` +
        `(new profile for ${server.url}/v2); the tokens are stored in ${store}.\n` +
        `Profile "${name}" is now the current one; back to the embedded platform with: plat profiles use local\n`,
    );

    // The next command goes to the server, signed in.
    expect(await whoami(env)).toMatchObject({ type: 'user', email: OWNER, org: serverOrg });

    // Back to the embedded platform: its own, made on first use.
    expect((await plat(env, ['profiles', 'use', 'local'])).code).toBe(0);
    const local = await whoami(env);
    expect(local).toMatchObject({ type: 'api_key', email: OWNER });
    expect(local.org).not.toBe(serverOrg);
    expect(local.r.stderr).toContain('Created the embedded platform at');

    // Signing in to that server again reuses its profile.
    const again = await login(env, ['login', '--base-url', server.url, '--no-browser']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`under profile "${name}" (the profile for ${server.url}/v2);`);
    expect((await plat(env, ['profiles', 'list', '-o', 'ids'])).stdout).toBe(`${name}\nlocal\n`);
    expect(await whoami(env)).toMatchObject({ type: 'user', email: OWNER, org: serverOrg });
    expect(JSON.parse(readFileSync(join(env.PLAT_CONFIG_DIR as string, 'config.json'), 'utf8'))).toEqual({
      currentProfile: name,
      profiles: { local: { org: local.org }, [name]: { baseUrl: `${server.url}/v2` } },
    });
  }, 120_000);

  it('PLAT_BASE_URL does the same as --base-url', async () => {
    const env = processHome('plat-client-env');
    const name = `127.0.0.1-${new URL(server.url).port}`;
    const r = await login({ ...env, PLAT_BASE_URL: server.url }, ['login', '--no-browser']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`under profile "${name}" (new profile for ${server.url}/v2);`);
    expect(await whoami(env)).toMatchObject({
      type: 'user',
      email: OWNER,
      org: JSON.parse(init.stdout).organizationId,
    });
  }, 60_000);
});
