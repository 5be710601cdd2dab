// Makes an upgrade fixture: an embedded platform written by a released `plat`, and what that release answered about
// it. test/platform/upgrade.test.ts opens it with the current code and checks that nothing was lost.
//
//   git worktree add /tmp/plat-0.1.0 v0.1.0 && (cd /tmp/plat-0.1.0 && npm ci && npm run build)
//   node scripts/make-upgrade-fixture.mjs /tmp/plat-0.1.0/bin/plat.js test/fixtures/upgrade/0.1.0
//
// It drives the release only through what any release offers — the CLI and the HTTP API — so the same script makes
// the fixture of every later release. Run it once, with the release itself, and never again: the fixture pins the
// migrations that release ran (test/platform/migrations.test.ts), which a database made by later code cannot. The fixture holds test secrets (API keys, a refresh token, a password) in
// clear on purpose: the test must present them to prove that they still work.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [bin, outArg] = process.argv.slice(2);
if (!bin || !outArg) {
  console.error('usage: node scripts/make-upgrade-fixture.mjs PATH/TO/bin/plat.js OUT_DIR');
  process.exit(2);
}
const out = resolve(outArg);
const home = mkdtempSync(join(tmpdir(), 'plat-fixture-'));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  PLAT_DATA_DIR: join(home, 'data'),
  PLAT_CONFIG_DIR: join(home, 'config'),
  PLAT_CREDENTIAL_STORE: 'file',
};
const PASSWORD = 'fixture owner password 0.1';

/** Runs `plat …` and returns its stdout (JSON parsed when asked). */
function plat(args, { input, json = false } = {}) {
  const stdout = execFileSync(process.execPath, [bin, ...args], { env, input: input ?? '', encoding: 'utf8' });
  return json ? JSON.parse(stdout) : stdout;
}
/** Runs `plat …` without blocking this process (whose servers it may reach); its stdout. */
async function platAsync(args, input) {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(input ?? '');
  let stdout = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  const code = await new Promise((res) => child.once('close', res));
  if (code !== 0) throw new Error(`plat ${args.join(' ')} exited ${code}`);
  return stdout;
}
const api = (method, path, data) =>
  plat(['api', method, path, ...(data === undefined ? [] : ['--data', JSON.stringify(data)])], { json: true });

// The organization, its owner (with a password, to sign in below) and the owner's multi-organization key.
const made = plat(['local', 'init', '--org', 'Fixture Org', '--password', PASSWORD, '--json'], { json: true });
const org = made.organizationId;
const team = plat(['teams', 'create', 'Engineering', '--json'], { json: true });
const ada = plat(
  ['users', 'invite', 'ada@example.com', '--name', 'Ada Lovelace', '--role', 'admin', '--team', team.id, '--json'],
  { json: true },
);
plat(['users', 'invite', 'grace@example.com', '--name', 'Grace Hopper', '--json']);
const mallory = plat(['users', 'invite', 'mallory@example.com', '--name', 'Mallory', '--json'], { json: true });
plat(['users', 'suspend', mallory.userId, '--yes']);
plat(['users', 'update', ada.userId, '--metadata', 'department=R&D', '--metadata', 'floor=3']);
const project = plat(['projects', 'create', 'Payments API', '--json'], { json: true });
plat(['envs', 'set', project.id, 'staging', 'LOG_LEVEL=debug', 'API_URL=https://staging.example']);
plat(['envs', 'create', project.id, 'preview']);
plat(['envs', 'promote', project.id, '--from', 'staging', '--to', 'production']);
plat(['members', 'add', project.id, ada.userId, '--role', 'developer']);
const other = plat(['projects', 'create', 'Old Thing', '--json'], { json: true });
plat(['projects', 'archive', other.id]);
const restricted = plat(
  [
    'keys',
    'create',
    '--name',
    'ci',
    '--env',
    'live',
    '--permission',
    'projects:read',
    '--permission',
    'events:read',
    '--project',
    project.id,
    '--json',
  ],
  { json: true },
);
const revoked = plat(['keys', 'create', '--name', 'old', '--env', 'live', '--json'], { json: true });
plat(['keys', 'revoke', revoked.id, '--yes']);
const clientSecret = `fixture-oidc-secret-${randomBytes(6).toString('hex')}`;
// An OpenID provider's discovery document on loopback: from 0.2.0 on, plat reads the issuer when SSO is saved, so
// this one command runs without blocking this process, which answers it.
const discovery = createServer((req, res) => {
  const issuer = `http://127.0.0.1:${discovery.address().port}`;
  const doc = {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
  };
  res.writeHead(req.url === '/.well-known/openid-configuration' ? 200 : 404, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(doc));
});
await new Promise((res) => discovery.listen(0, '127.0.0.1', res));
await platAsync(
  [
    'sso',
    'set',
    '--protocol',
    'oidc',
    '--provider',
    'custom-oidc',
    '--issuer',
    `http://127.0.0.1:${discovery.address().port}`,
    '--client-id',
    'plat-fixture',
    '--client-secret-stdin',
    '--map',
    'email=email',
    '--map',
    'name=name',
    '--domain',
    'example.com',
  ],
  clientSecret,
);
discovery.close();
const second = plat(['orgs', 'create', 'Second Org', '--json'], { json: true });

// A session and its refresh token: the owner signs in through the HTTP server, as a browser would.
const server = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
const origin = await new Promise((res, rej) => {
  let log = '';
  server.stderr.on('data', (c) => {
    log += c;
    const m = /Listening on (\S+)\/v2/.exec(log);
    if (m) res(m[1]);
  });
  server.once('exit', (code) => rej(new Error(`plat serve exited (${code}): ${log}`)));
});
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
const redirectUri = 'http://127.0.0.1:49152/callback';
const authorize = `${origin}/v2/auth/authorize?${new URLSearchParams({
  response_type: 'code',
  client_id: 'plat-cli',
  redirect_uri: redirectUri,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  state: 'fixture',
})}`;
const page = await fetch(authorize);
const cookie = page.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ');
/** The hidden fields (and checked radio buttons) of a page's form. */
const formFields = (html) => {
  const fields = {};
  for (const m of html.matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(m[1])?.[1];
    const value = (/value="([^"]*)"/.exec(m[1])?.[1] ?? '').replace(/&amp;/g, '&');
    if (name && (/type="hidden"/.test(m[1]) || / checked/.test(m[1]))) fields[name] = value;
  }
  return fields;
};
const post = (fields) =>
  fetch(`${origin}/v2/auth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: new URLSearchParams(fields),
  });
let signedIn = await post({ ...formFields(await page.text()), email: 'admin@localhost', password: PASSWORD });
// The owner belongs to two organizations: the next page asks which one (the first is checked).
if (signedIn.status === 200) signedIn = await post(formFields(await signedIn.text()));
const code = new URL(signedIn.headers.get('location')).searchParams.get('code');
const tokens = await (
  await fetch(`${origin}/v2/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'plat-cli',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }),
  })
).json();
if (!tokens.refresh_token) throw new Error(`sign-in failed: ${JSON.stringify(tokens)}`);
const whoami = await (
  await fetch(`${origin}/v2/auth/whoami`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
).json();
server.kill('SIGTERM');
await new Promise((res) => server.once('exit', res));

// What this release answers about everything it stored, for the test to compare with.
const owner = made.userId;
const answers = {
  organizations: api('GET', '/organizations'),
  organization: api('GET', `/organizations/${org}`),
  users: api('GET', `/organizations/${org}/users?per_page=100&sort=email&order=asc`),
  invitations: api('GET', `/organizations/${org}/invitations?per_page=100`),
  teams: api('GET', `/organizations/${org}/teams?per_page=100`),
  teamMembers: api('GET', `/teams/${team.id}/members?per_page=100`),
  projects: api('GET', `/organizations/${org}/projects?per_page=100`),
  environments: api('GET', `/projects/${project.id}/environments`),
  members: api('GET', `/projects/${project.id}/members?per_page=100`),
  apiKeys: api('GET', `/organizations/${org}/api-keys?per_page=100`),
  sso: api('GET', `/organizations/${org}/sso`),
  sessions: api('GET', `/users/${owner}/sessions`),
  events: plat(['api', 'GET', `/organizations/${org}/events?limit=100`, '--paginate'], { json: true }),
  mail: plat(['local', 'mail', '--json'], { json: true }),
};

mkdirSync(out, { recursive: true });
// The database, its rate-limit file, and (from 0.2.0 on) the key its secrets are sealed with.
for (const file of ['local.db', 'local.db.limits', 'local.db.key']) {
  if (existsSync(join(env.PLAT_DATA_DIR, file))) copyFileSync(join(env.PLAT_DATA_DIR, file), join(out, file));
}
const manifest = {
  version: plat(['--version']).trim(),
  madeAt: new Date().toISOString(),
  organizationId: org,
  secondOrganizationId: second.id,
  ownerId: owner,
  ownerEmail: 'admin@localhost',
  ownerPassword: PASSWORD,
  ownerKey: made.apiKey,
  restrictedKey: restricted.key,
  revokedKey: revoked.key,
  projectId: project.id,
  archivedProjectId: other.id,
  teamId: team.id,
  adaUserId: ada.userId,
  malloryUserId: mallory.userId,
  ssoClientSecret: clientSecret,
  session: { id: whoami.sessionId, refreshToken: tokens.refresh_token, clientId: 'plat-cli' },
  answers,
};
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
rmSync(home, { recursive: true, force: true });
console.log(`fixture of plat ${manifest.version} written to ${out}`);
