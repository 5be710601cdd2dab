import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, type Start, servePlat, startPlat } from '../../helpers/spawn.js';

afterAll(cleanUpProcesses);

const plat = async (env: Record<string, string>, argv: string[], start: Start = 'launcher') => {
  const r = await startPlat(env, argv, { start, cwd: env.HOME }).done;
  expect(r.code, `plat ${argv.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
};

describe('plat users export as its own process', () => {
  it('gives the same CSV from the embedded platform and from plat serve over a real socket', async () => {
    const env = processHome('plat-export');
    const made = JSON.parse((await plat(env, ['local', 'init', '--json'])).stdout);
    await plat(env, ['users', 'invite', 'ada@example.com', '--name', 'Lovelace, Ada\n"the Countess"']);
    await plat(env, ['users', 'invite', 'grace@example.com', '--name', '@SUM(A1)']);
    const team = JSON.parse((await plat(env, ['teams', 'create', 'R;D', '--json'])).stdout).id as string;
    const ada = JSON.parse((await plat(env, ['users', 'list', '--search', 'ada', '--json'])).stdout)[0].id as string;
    await plat(env, ['api', 'POST', `/teams/${team}/members`, '--data', JSON.stringify({ userId: ada })]);
    await plat(env, ['api', 'PATCH', `/users/${ada}`, '--data', '{"metadata":{"code":"007","n":7}}']);

    // From the startup snapshot (the launcher) and the ordinary way, through a pipe.
    const embedded = await plat(env, ['users', 'export']);
    expect((await plat(env, ['users', 'export'], 'node')).stdout).toBe(embedded.stdout);
    expect(embedded.stderr).toBe('Exported 3 users to stdout\n');
    expect(embedded.stdout).toContain(`,"Lovelace, Ada\n""the Countess""",member,pending,R\\;D,`);
    expect(embedded.stdout).toContain(",'@SUM(A1),member,pending,,");
    expect(embedded.stdout).toContain(',007,7\r\n'); // not a JSON number: no mark needed

    const server = await servePlat(env);
    const remote = { ...env, PLAT_BASE_URL: server.url, PLAT_API_KEY: made.apiKey, PLAT_ORG: made.organizationId };
    expect((await plat(remote, ['users', 'export'])).stdout).toBe(embedded.stdout);
    const file = await plat(remote, ['users', 'export', '--format', 'jsonl', '--output', 'users.jsonl']);
    expect(file).toMatchObject({ stdout: '', stderr: 'Exported 3 users to users.jsonl\n' });
    const path = join(env.HOME as string, 'users.jsonl');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((u) => [u.email, u.teams])).toEqual([
      ['admin@localhost', []],
      ['ada@example.com', ['R;D']],
      ['grace@example.com', []],
    ]);
    server.child.kill('SIGTERM');
  });
});
