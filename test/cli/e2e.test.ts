import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, type Run, type Start, servePlat, startPlat } from '../helpers/spawn.js';

afterAll(cleanUpProcesses);

type Step = Run;

const home = () => processHome('plat-e2e');

/** Runs `plat …` as its own process (stdin and stdout are pipes, so no terminal), by default through the launcher. */
const plat = (env: Record<string, string>, argv: string[], input = '', start: Start = 'launcher') =>
  startPlat(env, argv, { input, start }).done;

/**
 * Makes a transcript comparable across instances: every generated id becomes `<kind#n>` in order of first
 * appearance, timestamps `<time>`, secrets and their displayed parts `<secret>`.
 */
function normalize(steps: Step[]): string {
  const seen = new Map<string, string>();
  const counts = new Map<string, number>();
  return steps
    .map((s) => `$ plat ${s.argv.join(' ')}\n[${s.code}]\n${s.stdout}--\n${s.stderr}`)
    .join('\n')
    .replace(/plat_(live|test)_[A-Za-z0-9]+(…[A-Za-z0-9]{4})?/g, '<secret>')
    .replace(/"last4": "[A-Za-z0-9]{4}"/g, '"last4": "<secret>"')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
    .replace(/\b(user|org|proj|team|inv|env|sess|key|evt|req)_[A-Za-z0-9]{8,}\b/g, (id, kind: string) => {
      if (!seen.has(id)) {
        const n = (counts.get(kind) ?? 0) + 1;
        counts.set(kind, n);
        seen.set(id, `<${kind}#${n}>`);
      }
      return seen.get(id) as string;
    });
}

/** The scenario of the contract, through whatever endpoint `env` and the current profile lead to. */
async function scenario(env: Record<string, string>, start: Start = 'launcher'): Promise<Step[]> {
  const steps: Step[] = [];
  const run = async (argv: string[], input?: string) => {
    const s = await plat(env, argv, input, start);
    steps.push(s);
    return s;
  };
  const ada = await run(['users', 'invite', 'ada@example.com', '--name', 'Ada Lovelace', '--role', 'admin', '--json']);
  const user = JSON.parse(ada.stdout).userId as string;
  await run(['users', 'invite', 'bob@example.com', '-o', 'ids']);
  await run(['users', 'list', '--status', 'pending', '--sort', 'email', '--order', 'asc']);
  await run(['users', 'list', '--search', 'LOVELACE', '--json']);
  await run(['users', 'list', '--per-page', '1', '--all', '-o', 'ids']);
  const project = (
    await run(['projects', 'create', 'Billing API', '--description', 'Invoices', '-o', 'ids'])
  ).stdout.trim();
  await run(['projects', 'update', project, '--default-env', 'staging', '--auto-scaling']);
  await run(['projects', 'get', 'billing-api', '-o', 'csv']);
  await run(['members', 'add', project, user, '--role', 'developer']);
  await run(['members', 'update', project, user, '--role', 'admin']);
  await run(['members', 'list', project]);
  await run(['envs', 'set', project, 'staging', 'LOG_LEVEL=debug', 'REGION=eu']);
  await run(['envs', 'promote', project, '--from', 'staging', '--to', 'production']);
  await run(['envs', 'get', project, 'production', '--json']);
  await run(['envs', 'list', project]);
  const key = JSON.parse(
    (await run(['keys', 'create', '--name', 'ci', '--permission', 'projects:read', '--json'])).stdout,
  );
  await run(['keys', 'revoke', key.id]); // no --yes, no terminal: refused, nothing changed
  await run(['keys', 'list', '-o', 'csv']);
  await run(['keys', 'revoke', key.id, '--yes']);
  await run(['keys', 'list']);
  await run(['sessions', 'list']);
  await run(['projects', 'archive', project]);
  await run(['envs', 'set', project, 'staging', 'X=1']); // archived: 409
  await run(['users', 'delete', user]);
  await run(['users', 'get', user, '-o', 'ids']);
  await run(['users', 'delete', user, '--yes']);
  await run(['users', 'get', user]);
  await run(['users', 'list', '-o', 'ids']);
  await run(['projects', 'delete', project, '--yes']);
  await run(['projects', 'list']);
  await run(['events', 'list', '--type', 'api_key.revoked', '-o', 'csv']);
  return steps;
}

describe('end to end, as spawned processes', () => {
  it('needs the build', () => {
    expect(
      existsSync(new URL('../../dist/bundle/main.js', import.meta.url)),
      'run `npm run build` first (npm test does)',
    ).toBe(true);
  });

  it('the embedded platform and plat serve behind a remote profile give the same results', async () => {
    // Embedded: the default profile, created by local init; once started by the launcher (from the startup
    // snapshot), once as `node bin/plat.js`.
    const embeddedEnv = home();
    const init = await plat(embeddedEnv, ['local', 'init', '--json']);
    expect(init.code).toBe(0);
    const plainEnv = home();
    expect((await plat(plainEnv, ['local', 'init', '--json'], '', 'node')).code).toBe(0);

    // Remote: a server over its own data, and a client home with a remote profile holding the server's key.
    const serverEnv = home();
    const made = JSON.parse((await plat(serverEnv, ['local', 'init', '--json'])).stdout);
    const server = await servePlat(serverEnv);
    const clientEnv = home();
    const add = await plat(
      clientEnv,
      ['profiles', 'add', 'remote', '--base-url', server.url, '--org', made.organizationId, '--api-key-stdin', '--use'],
      `${made.apiKey}\n`,
    );
    expect(add.code).toBe(0);
    // The three run side by side: they share nothing but the built binary.
    const [embedded, remote, plain] = await Promise.all([
      scenario(embeddedEnv),
      scenario(clientEnv),
      scenario(plainEnv, 'node'),
    ]);

    const [a, b] = [normalize(embedded), normalize(remote)];
    expect(b).toBe(a);
    expect(normalize(plain)).toBe(a);

    // Spot checks that the scenario did what it says (the comparison alone would accept two equal failures).
    const codes = embedded.map((s) => s.code);
    expect(codes.filter((c) => c !== 0)).toEqual([2, 6, 2, 5]);
    expect(a).toContain(
      '$ plat keys revoke <key#1>\n[2]\n--\nplat: refusing to revoke API key <key#1> without confirmation',
    );
    expect(a).toContain('$ plat users get <user#1> -o ids\n[0]\n<user#1>\n');
    expect(a).toContain('ID\tNAME\tENV\tKEY\tSTATUS\tCREATED\tEXPIRES\n<key#1>\tci\tlive\t<secret>\trevoked\t');
    expect(a).toContain('"config": {\n    "LOG_LEVEL": "debug",\n    "REGION": "eu"\n  }');

    // The server logged one line per request, never the key, and stops cleanly on SIGTERM.
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const log = server.log();
    expect(log).toMatch(/^127\.0\.0\.1 GET \/v2\/organizations\/org_\w+\/users \d{3} [\d.]+ms req_\w+$/m);
    expect(log).toContain('Stopped.');
    expect(log).not.toContain(made.apiKey);
    for (const s of [...embedded, ...remote]) expect(s.stdout + s.stderr).not.toContain(made.apiKey);
  }, 180_000);
});
