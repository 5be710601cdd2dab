import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, servePlat, startPlat } from '../helpers/spawn.js';

// The README's CI recipe — `PLAT_BASE_URL=… PLAT_API_KEY=… plat …` — on a machine that has used plat before: the
// environment names another instance, and nothing of the local profile (its organization, its key) goes there
// (docs/cli.md, "Where a command goes").

afterAll(cleanUpProcesses);

const run = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

describe('the CI recipe', () => {
  it('works in a HOME whose local profile has an organization of its own', async () => {
    // The developer's machine: the embedded platform made, its organization recorded in the local profile.
    const home = processHome('plat-ci-recipe');
    expect((await run(home, ['local', 'init'])).code).toBe(0);
    const local = JSON.parse((await run(home, ['orgs', 'get', '-o', 'json'])).stdout) as { id: string };

    // The instance CI talks to: another platform, served, with a key of its own.
    const server = processHome('plat-ci-server');
    const made = await run(server, ['local', 'init', '--json']);
    expect(made.code).toBe(0);
    const { apiKey, organizationId } = JSON.parse(made.stdout) as { apiKey: string; organizationId: string };
    expect(organizationId).not.toBe(local.id);
    const served = await servePlat(server);

    const ci = { ...home, PLAT_BASE_URL: served.url, PLAT_API_KEY: apiKey };
    const created = await run(ci, ['projects', 'create', 'Payments API', '-o', 'json']);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const listed = await run(ci, ['projects', 'list', '-o', 'json']);
    expect(listed, listed.stderr).toMatchObject({ code: 0 });
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((p) => p.name)).toEqual(['Payments API']);
    expect(JSON.parse(created.stdout)).toMatchObject({ organizationId });
    // What the profile says there: the credential's own organization, and why.
    const status = await run(ci, ['auth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout + status.stderr).not.toContain(local.id);
    // PLAT_ORG still chooses, and the local profile is untouched for the developer.
    expect((await run({ ...ci, PLAT_ORG: local.id }, ['projects', 'list'])).code).not.toBe(0);
    expect(JSON.parse((await run(home, ['orgs', 'get', '-o', 'json'])).stdout)).toMatchObject({ id: local.id });
  });
});
