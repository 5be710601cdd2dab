import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';
import { authorizeUrl, FormBrowser, pkce, REDIRECT, signIn } from '../platform/auth/helpers.js';
import { fixture, SAMPLE_FIREBASE, SAMPLE_FIREBASE_FLAGS, secretsOf } from './bulk/provider-rows.js';

// `plat users import FILE --from …` as its own process (the built CLI): every sample of test/fixtures/providers/ (their
// documentation cited in test/cli/bulk/provider-*.test.ts) on the embedded platform, a dry run first — which exits and
// counts as the real run then does — and, against `plat serve`, the imported users signing in through the sign-in
// page with the passwords they had (docs/migrate.md, "What the users see").

afterAll(cleanUpProcesses);

const home = (env: Record<string, string>) => env.HOME as string;
const plat = (env: Record<string, string>, argv: string[], input?: string) =>
  startPlat(env, argv, { cwd: home(env), input }).done;

/**
 * Each sample, the flags it needs (the Firebase signer key apart), and what its import does on a platform that has none
 * of its users.
 */
const SAMPLES: {
  provider: string;
  file: string;
  flags?: string[];
  /** It needs the Firebase project's signer key (a secret: given on stdin, or in the environment). */
  signerKey?: string;
  code: number;
  counts: string;
}[] = [
  {
    provider: 'auth0',
    file: 'auth0-export.ndjson',
    code: 7,
    counts: '4 rows — 3 created, 0 updated, 0 unchanged, 1 failed',
  },
  {
    provider: 'auth0',
    file: 'auth0-import.json',
    code: 7,
    counts: '8 rows — 5 created, 0 updated, 0 unchanged, 3 failed',
  },
  {
    provider: 'auth0',
    file: 'auth0-password-export.ndjson',
    code: 0,
    counts: '2 rows — 2 created, 0 updated, 0 unchanged, 0 failed',
  },
  {
    provider: 'firebase',
    file: 'firebase-export.json',
    flags: SAMPLE_FIREBASE_FLAGS,
    signerKey: SAMPLE_FIREBASE.signerKey,
    code: 0,
    counts: '3 rows — 3 created, 0 updated, 0 unchanged, 0 failed',
  },
  {
    provider: 'cognito',
    file: 'cognito-users.csv',
    code: 7,
    counts: '3 rows — 2 created, 0 updated, 0 unchanged, 1 failed',
  },
  {
    provider: 'cognito',
    file: 'cognito-list-users.json',
    code: 0,
    counts: '2 rows — 2 created, 0 updated, 0 unchanged, 0 failed',
  },
  {
    provider: 'clerk',
    file: 'clerk-users.csv',
    code: 7,
    counts: '6 rows — 5 created, 0 updated, 0 unchanged, 1 failed',
  },
  {
    provider: 'clerk',
    file: 'clerk-export.json',
    code: 7,
    counts: '4 rows — 3 created, 0 updated, 0 unchanged, 1 failed',
  },
];

/** Whatever a run printed or wrote holds no secret of the sample (its hashes are checked in-process). */
function expectNoSecrets(env: Record<string, string>, file: string, printed: string): void {
  const written = readdirSync(home(env))
    .filter((f) => f.includes('errors'))
    .map((f) => readFileSync(join(home(env), f), 'utf8'))
    .join('');
  for (const secret of secretsOf(file)) expect(printed + written).not.toContain(secret);
  expect(printed).not.toContain(SAMPLE_FIREBASE.signerKey);
}

describe('users import --from as a process', () => {
  it('needs the build', () => {
    expect(existsSync(new URL('../../dist/bundle/main.js', import.meta.url)), 'run `npm run build` first').toBe(true);
  });

  it('each sample on the embedded platform: the dry run exits and counts as the real run, which then imports', async () => {
    const homes = new Map<string, Record<string, string>>();
    for (const s of SAMPLES) {
      // One platform per provider: two providers' samples share an address (jane@example.com).
      let env = homes.get(s.provider);
      if (!env) {
        env = processHome(`plat-from-${s.provider}`);
        expect((await plat(env, ['local', 'init'])).code).toBe(0);
        homes.set(s.provider, env);
      }
      copyFileSync(fixture(s.file), join(home(env), s.file));
      const argv = ['users', 'import', s.file, '--from', s.provider, ...(s.flags ?? [])];
      if (s.signerKey) argv.push('--hash-key-stdin');
      const input = s.signerKey && `${s.signerKey}\n`;
      const dry = await plat(env, [...argv, '--dry-run'], input);
      const real = await plat(env, argv, input);
      expect([s.file, dry.code], dry.stderr).toEqual([s.file, s.code]);
      expect([s.file, real.code], real.stderr).toEqual([s.file, s.code]);
      expect(dry.stderr).toContain(`Dry run of ${s.file}, nothing changed: ${s.counts}`);
      expect(real.stderr).toContain(`Imported ${s.file}: ${s.counts}`);
      expect(dry.stderr.replace(`Dry run of ${s.file}, nothing changed`, `Imported ${s.file}`)).toBe(real.stderr);
      expectNoSecrets(env, s.file, dry.stdout + dry.stderr + real.stdout + real.stderr);
    }
    const listed = await plat(homes.get('firebase') as Record<string, string>, ['users', 'list', '--json']);
    const statuses = Object.fromEntries(
      (JSON.parse(listed.stdout) as { email: string; status: string }[]).map((u) => [u.email, u.status]),
    );
    expect(statuses).toEqual({
      'admin@localhost': 'active',
      'user1@test.com': 'active',
      'grace@example.com': 'pending',
      'mallory@example.com': 'suspended',
    });
  }, 240_000);

  it('against plat serve: imported users sign in with the passwords they had, twice (then with plat’s hash)', async () => {
    const serverEnv = processHome('plat-from-server');
    const made = JSON.parse((await plat(serverEnv, ['local', 'init', '--json'])).stdout);
    const server = await servePlat(serverEnv, ['--no-rate-limits']);
    const env: Record<string, string> = {
      ...processHome('plat-from-client'),
      PLAT_BASE_URL: server.url,
      PLAT_API_KEY: made.apiKey,
      PLAT_ORG: made.organizationId,
    };
    for (const s of SAMPLES.filter((x) => x.file !== 'cognito-users.csv' && x.file !== 'auth0-export.ndjson')) {
      copyFileSync(fixture(s.file), join(home(env), s.file));
      // The Firebase signer key from the environment here (from stdin above): never on the command line.
      const keyed = s.signerKey ? { ...env, PLAT_FIREBASE_HASH_KEY: s.signerKey } : env;
      const r = await plat(keyed, ['users', 'import', s.file, '--from', s.provider, ...(s.flags ?? [])]);
      expect([s.file, r.code], r.stderr).toEqual([s.file, s.code]);
    }
    /** Signs in on the sign-in page; true when it redirects back to the CLI with a code. */
    const signsIn = async (email: string, password: string) => {
      const browser = new FormBrowser(fetch);
      const r = await signIn(browser, authorizeUrl(`${server.url}/v2/auth`, pkce().challenge), email, password);
      return r.status === 303 && (r.location ?? '').startsWith(REDIRECT) && r.location?.includes('code=') === true;
    };
    // The passwords the samples' hashes were made with (test/fixtures/providers/README.md).
    const passwords: [string, string][] = [
      ['velma@example.com', "velma's old auth0 password"], // bcrypt
      ['edward@example.com', "edward's old auth0 password"], // argon2id
      ['cecil@example.com', "cecil's old auth0 password"], // pbkdf2-sha512, PHC
      ['carmella@example.com', "carmella's old auth0 password"], // scrypt, PHC
      ['nico@example.com', "nico's old auth0 password"], // Auth0 support's bcrypt
      ['user1@test.com', 'user1password'], // Firebase scrypt
      ['jane@example.com', "jane's old clerk password"], // bcrypt
      ['june@example.com', "june's old clerk password"], // argon2id
      ['peter@example.com', "peter's old clerk password"], // Clerk's pbkdf2_sha256
      ['django@example.com', "django's old clerk password"], // Django
      ['jessica@example.com', 'user1password'], // Clerk's scrypt_firebase
    ];
    for (const [email, password] of passwords) {
      expect([email, await signsIn(email, 'not the password at all')]).toEqual([email, false]);
      expect([email, await signsIn(email, password)]).toEqual([email, true]);
      // The imported hash was replaced by the platform's own: the same password still works.
      expect([email, await signsIn(email, password)]).toEqual([email, true]);
    }
    // Blocked at Auth0: suspended here, so not signed in.
    expect(await signsIn('dora@example.com', "dora's old auth0 password")).toBe(false);
    server.child.kill('SIGTERM');
  }, 240_000);
});
