import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_MODES } from '../../src/cli/output/render.js';
import { KEY_ENVIRONMENTS } from '../../src/contract/api-keys.js';
import { PLANS } from '../../src/contract/limits.js';
import { PERMISSIONS, PROJECT_ROLES } from '../../src/contract/permissions.js';
import { PROJECT_STATUSES } from '../../src/contract/projects.js';
import { USER_SORTS, USER_STATUSES } from '../../src/contract/users.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { BIN } from '../helpers/spawn.js';

// The scripts run in real shells, in a directory with files to complete; `plat` on their PATH is the built one
// (npm run build), which the scripts ask for profile names.
let w: CliWorld;
let work: string;
let env: Record<string, string>;
beforeAll(async () => {
  w = cliWorld();
  expect((await w.runCli(['profiles', 'add', 'prod', '--base-url', 'https://api.example.com/v2'])).code).toBe(0);
  expect((await w.runCli(['profiles', 'add', 'staging', '--base-url', 'https://staging.example.com'])).code).toBe(0);
  work = join(w.dir, 'work');
  mkdirSync(join(work, 'exports'), { recursive: true });
  for (const f of ['people.csv', 'people old.csv', 'team.json']) writeFileSync(join(work, f), '');
  const bin = join(w.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'plat'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'plat'), 0o755);
  env = { ...w.env, PATH: `${bin}:${process.env.PATH}`, PLAT_CREDENTIAL_STORE: 'file' };
  writeFileSync(join(w.dir, 'plat.bash'), (await w.runCli(['completion', 'bash'])).stdout);
  writeFileSync(join(w.dir, 'plat.zsh'), (await w.runCli(['completion', 'zsh'])).stdout);
});
afterAll(() => w.cleanup());

/** What bash's completion function offers for a command line whose last word is the one being completed. */
function bash(words: string[]): string[] {
  const quoted = words.map((x) => `'${x}'`).join(' ');
  const cmd = `source ../plat.bash; COMP_WORDS=(plat ${quoted}); COMP_CWORD=${words.length}; _plat; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', cmd], { encoding: 'utf8', cwd: work, env }).split('\n').filter(Boolean);
}

describe('bash completion', () => {
  it('completes -o with output modes, and with file names where -o names the file (users export)', () => {
    expect(bash(['users', 'list', '-o', ''])).toEqual([...OUTPUT_MODES]);
    expect(bash(['-o', ''])).toEqual([...OUTPUT_MODES]);
    expect(bash(['projects', 'list', '--output', 'j'])).toEqual(['json']);
    // readline sorts what it shows.
    expect(bash(['users', 'export', '-o', '']).sort()).toEqual([
      'exports',
      'people old.csv',
      'people.csv',
      'team.json',
    ]);
    expect(bash(['users', 'export', '--output', 'peo'])).toEqual(['people old.csv', 'people.csv']);
  });

  it('completes file names where a file goes, and nothing where free text goes', () => {
    expect(bash(['users', 'import', 'p'])).toEqual(['people old.csv', 'people.csv']);
    expect(bash(['users', 'import', 'people.csv', '--errors', 'ex'])).toEqual(['exports']);
    expect(bash(['--db', 'team'])).toEqual(['team.json']);
    expect(bash(['sso', 'set', '--metadata-file', 't'])).toEqual(['team.json']);
    expect(bash(['api', 'POST', '/organizations/org_1/teams', '--data', '@t'])).toEqual(['@team.json']);
    expect(bash(['api', 'POST', '/organizations/org_1/teams', '--data', '@ex'])).toEqual(['@exports/']);
    expect(bash(['api', 'POST', '/organizations/org_1/teams', '--data', ''])).toEqual([]);
    expect(bash(['users', 'list', '--search', ''])).toEqual([]);
    // After a flag's value: the verb's flags again.
    expect(bash(['users', 'import', 'people.csv', '--errors', 'x.jsonl', '--up'])).toEqual(['--upsert']);
  });

  it('completes enum choices from the constants the verbs check them with', () => {
    expect(bash(['users', 'list', '--status', ''])).toEqual([...USER_STATUSES]);
    expect(bash(['users', 'list', '--sort', ''])).toEqual([...USER_SORTS]);
    expect(bash(['users', 'list', '--order', ''])).toEqual(['asc', 'desc']);
    expect(bash(['users', 'invite', 'ada@example.com', '--role', 'a'])).toEqual(['admin']);
    expect(bash(['projects', 'list', '--status', ''])).toEqual([...PROJECT_STATUSES]);
    expect(bash(['keys', 'create', '--name', 'ci', '--env', ''])).toEqual([...KEY_ENVIRONMENTS]);
    expect(bash(['keys', 'create', '--permission', ''])).toEqual([...PERMISSIONS]);
    expect(bash(['members', 'add', 'billing', 'ada@example.com', '--role', ''])).toEqual([...PROJECT_ROLES]);
    expect(bash(['orgs', 'update', '--plan', ''])).toEqual([...PLANS]);
    expect(bash(['users', 'export', '--format', 'j'])).toEqual(['json', 'jsonl']);
    expect(bash(['api', 'P'])).toEqual(['POST', 'PUT', 'PATCH']);
    expect(bash(['completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    // bash splits --status=… at the =.
    expect(bash(['users', 'list', '--status', '=', 'sus'])).toEqual(['suspended']);
  });

  it('completes profile names from the config file', () => {
    expect(bash(['--profile', ''])).toEqual(['local', 'prod', 'staging']);
    expect(bash(['--profile', 'p'])).toEqual(['prod']);
    expect(bash(['profiles', 'use', 's'])).toEqual(['staging']);
    expect(bash(['--profile', 'prod', 'projects', 'ar'])).toEqual(['archive']);
  });
});

describe('zsh completion', () => {
  /** Types each line into an interactive zsh (in a terminal) with a TAB at each `\t`; `plat` prints its arguments. */
  function zsh(lines: string[]): string[] {
    const typed = lines.map((l) => `zpty -w z ${shellQuote(`${l}\n`)}`).join('\n');
    const driver = `zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z 'PS1="%% "; autoload -U compinit; compinit -u; source ../plat.zsh; plat() { print -r -- "ARGS<$*>" }'
${typed}
zpty -w z exit
while zpty -r z line; do print -rn -- "$line"; done`;
    const out = execFileSync('zsh', ['-f', '-c', driver], { encoding: 'utf8', cwd: work, env, timeout: 20_000 });
    return [...out.replaceAll('\r', '').matchAll(/^ARGS<(.*)>$/gm)].map((m) => m[1] as string);
  }
  const shellQuote = (s: string) =>
    `$'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n').replaceAll('\t', '\\t')}'`;

  it('completes commands, -o, choices and file names in a real zsh', () => {
    expect(
      zsh([
        'plat us\tlist -o cs\t',
        'plat users export -o tea\t',
        'plat users import people\\ o\t',
        'plat api POST /x --data @tea\t',
        'plat users list --status sus\t',
        'plat keys create --env te\t',
      ]),
    ).toEqual([
      'users list -o csv',
      'users export -o team.json',
      'users import people old.csv',
      'api POST /x --data @team.json',
      'users list --status suspended',
      'keys create --env test',
    ]);
  });
});
