import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpProcesses, processHome, startPlat } from '../helpers/spawn.js';

/**
 * Two defects of the platform as a user of the CLI meets them, each command a spawned `plat`: a key restricted to some
 * projects read the events of the others, and names made of nothing visible (or letters slugs dropped) were taken.
 */
afterAll(cleanUpProcesses);

const plat = (env: Record<string, string>, argv: string[]) => startPlat(env, argv).done;

describe('a key restricted to one project', () => {
  it('lists no event about another project', async () => {
    const env = processHome('plat-reach');
    const mine = (await plat(env, ['projects', 'create', 'Mine', '-o', 'ids'])).stdout.trim();
    const theirs = (await plat(env, ['projects', 'create', 'Secret Merger', '-o', 'ids'])).stdout.trim();
    expect((await plat(env, ['envs', 'set', theirs, 'staging', 'BANK=acme'])).code).toBe(0);
    const created = await plat(env, [
      'keys',
      'create',
      '--name',
      'ci',
      '--permission',
      'events:read',
      '--project',
      mine,
      '--json',
    ]);
    const key = JSON.parse(created.stdout).key as string;
    const seen = await plat({ ...env, PLAT_API_KEY: key }, ['events', 'list', '--limit', '100', '--json']);
    expect(seen, seen.stderr).toMatchObject({ code: 0 });
    const events = JSON.parse(seen.stdout) as { type: string; target: { id: string } }[];
    expect(events.map((e) => e.type)).toContain('project.created');
    expect(seen.stdout).not.toContain(theirs);
    expect(seen.stdout).not.toContain('Secret Merger');
    const all = await plat(env, ['events', 'list', '--limit', '100', '--json']);
    expect(all.stdout).toContain(theirs);
  });
});

describe('names', () => {
  it('made only of invisible characters are refused (7), and slugs spell ø, æ, ß, ł in ASCII', async () => {
    const env = processHome('plat-names');
    expect((await plat(env, ['local', 'init', '-q'])).code).toBe(0);
    expect(await plat(env, ['teams', 'create', '\u200b\u202e'])).toMatchObject({
      code: 7,
      stdout: '',
      // The name is shown with its invisible characters escaped: the message itself carries no bidi override.
      stderr: expect.stringMatching(
        /^plat: team name "\\u200b\\u202e": must contain a visible character \[request req_\w+\]\n$/,
      ),
    });
    expect((await plat(env, ['teams', 'list', '-o', 'ids'])).stdout).toBe('');
    const made = await plat(env, ['projects', 'create', 'Søren Ærø Straße Łódź', '--json']);
    expect(JSON.parse(made.stdout).slug).toBe('soren-aero-strasse-lodz');
  });
});
