import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';

let w: CliWorld;
beforeEach(async () => {
  w = cliWorld();
  await w.runCli(['users', 'invite', 'ada@example.com']); // user_0002
});
afterEach(() => w.cleanup());

describe('plat api', () => {
  it('prints the raw JSON answer of any endpoint', async () => {
    const r = await w.runCli(['api', 'get', '/v2/users/user_0002']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'user_0002', email: 'ada@example.com' });
    expect(r.stdout.endsWith('}\n')).toBe(true);
  });

  it('sends --data as JSON, from an argument, a file or stdin', async () => {
    const patch = await w.runCli(['api', 'PATCH', '/users/user_0002', '--data', '{"name":"Ada"}']);
    expect(JSON.parse(patch.stdout).name).toBe('Ada');
    writeFileSync(join(w.dir, 'team.json'), '{"name":"Core"}');
    const team = await w.runCli(['api', 'POST', '/organizations/org_0001/teams', '--data', '@team.json']);
    expect(JSON.parse(team.stdout)).toMatchObject({ id: 'team_0001', name: 'Core' });
    const fromStdin = await w.runCli(['api', 'POST', '/organizations/org_0001/teams', '--data', '@-'], {
      stdin: '{"name":"Ops"}',
    });
    expect(JSON.parse(fromStdin.stdout).name).toBe('Ops');
    expect(await w.runCli(['api', 'DELETE', '/teams/team_0001'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('refuses --data @- with --api-key-stdin (both read stdin) before any call (2)', async () => {
    const message = 'plat: --data @- and --api-key-stdin both need stdin; put the body in a file: --data @FILE\n';
    const stdin = '{"name":"plat_live_notakey"}';
    const args = ['api', 'POST', '/organizations/org_0001/teams', '--data', '@-', '--api-key-stdin', '--verbose'];
    expect(await w.runCli(args, { stdin })).toMatchObject({ code: 2, stdout: '', stderr: message });
    // Remote: no request either (a network call would be exit 4 with a verbose line).
    expect(await w.runCli(['--base-url', 'http://127.0.0.1:9', ...args], { stdin })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: message,
    });
    expect((await w.runCli(['api', 'GET', '/organizations/org_0001/teams', '--paginate'])).stdout).toBe('[]\n');
  });

  it('--paginate prints one array of every page, query in the path', async () => {
    const r = await w.runCli([
      'api',
      'GET',
      '/organizations/org_0001/users?sort=email&order=asc&limit=1',
      '--paginate',
    ]);
    expect(JSON.parse(r.stdout).map((u: { id: string }) => u.id)).toEqual(['user_0002', 'user_0001']);
  });

  it('maps failures like every command', async () => {
    expect((await w.runCli(['api', 'GET', '/users/user_9999'])).code).toBe(5);
    expect((await w.runCli(['api', 'PATCH', '/users/user_0002', '--data', '{"name":'])).stderr).toBe(
      'plat: --data is not valid JSON\n',
    );
    // The command line cannot be understood (2); a body the API refuses is 7.
    expect((await w.runCli(['api', 'PATCH', '/users/user_0002', '--data', '{"name":'])).code).toBe(2);
    expect((await w.runCli(['api', 'PATCH', '/users/user_0002', '--data', '{"bogus":1}'])).code).toBe(7);
    expect((await w.runCli(['api', 'FETCH', '/users'])).code).toBe(2);
    expect((await w.runCli(['api', 'GET', 'users'])).code).toBe(2);
    expect((await w.runCli(['api', 'POST', '/x', '--paginate'])).code).toBe(2);
  });
});

describe('plat completion', () => {
  /** Runs the bash script's completion function for a partial command line. */
  function complete(script: string, words: string[]): string[] {
    const file = join(w.dir, 'plat.bash');
    writeFileSync(file, script);
    const quoted = words.map((x) => `'${x}'`).join(' ');
    const cmd = `source ${file}; COMP_WORDS=(plat ${quoted}); COMP_CWORD=${words.length}; _plat; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['-c', cmd], { encoding: 'utf8' }).split('\n').filter(Boolean);
  }

  it('bash: nouns, verbs, and flags from the program', async () => {
    const r = await w.runCli(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(complete(r.stdout, ['us'])).toEqual(['users']);
    expect(complete(r.stdout, ['--profile', 'prod', 'projects', 'ar'])).toEqual(['archive']);
    expect(complete(r.stdout, ['users', 'list', '--st'])).toEqual(['--status']);
    expect(complete(r.stdout, ['keys', 'create', '--verb'])).toEqual(['--verbose']);
  });

  it('zsh shares the bash logic; fish lists every verb; an unknown shell is a usage error', async () => {
    const zsh = (await w.runCli(['completion', 'zsh'])).stdout;
    expect(zsh.split('\n').slice(0, 2)).toEqual([
      '# plat completion for zsh: source <(plat completion zsh)',
      '(( $+functions[compdef] )) || { autoload -U +X compinit && compinit; }',
    ]);
    expect(zsh).toContain('compdef _plat plat\n');
    const fish = (await w.runCli(['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c plat -n '__fish_use_subcommand' -a users -d 'Users of an organization'");
    expect(fish).toContain(
      "complete -c plat -n '__fish_seen_subcommand_from envs; and not __fish_seen_subcommand_from list get create set unset delete promote' -a promote",
    );
    expect(fish).toContain(
      "complete -c plat -n '__fish_seen_subcommand_from users; and __fish_seen_subcommand_from list' -l status -r -a 'active suspended pending'",
    );
    expect(fish).toContain(
      "complete -c plat -n '__fish_seen_subcommand_from users; and __fish_seen_subcommand_from import' -F\n",
    );
    expect(fish).toContain("complete -c plat -l profile -r -a '(plat profiles list -o ids 2>/dev/null)'");
    expect(await w.runCli(['completion', 'tcsh'])).toMatchObject({
      code: 2,
      stderr: 'plat: unknown shell "tcsh": use bash, zsh or fish\n',
    });
  });
});
