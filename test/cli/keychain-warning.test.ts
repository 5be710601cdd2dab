import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { fakeKeytar } from '../helpers/keytar.js';
import { BIN, cleanUpProcesses, processHome } from '../helpers/spawn.js';

afterAll(cleanUpProcesses);

const warning =
  /^plat: warning: no usable OS keychain \((.+)\); credentials are stored in (\S+), readable only by you$/gm;

describe('the keychain fallback warning, between commands (processes of their own)', () => {
  it('is given once per config directory, by the first command that stores a credential in the file', () => {
    // No D-Bus session bus (processHome passes none): plat knows there is no keychain and uses the file.
    const { PLAT_CREDENTIAL_STORE: _forced, ...env } = processHome('plat-keychain-warning');
    const plat = (argv: string[], input?: string) => {
      const r = spawnSync(process.execPath, [BIN, ...argv], { env, input, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      return r.stderr;
    };
    const file = join(env.PLAT_CONFIG_DIR as string, 'credentials.json');
    const add = (name: string) =>
      plat(['profiles', 'add', name, '--base-url', `https://${name}.example.com/v2`, '--api-key-stdin'], 'plat_live_k');

    const first = add('prod');
    expect([...first.matchAll(warning)].map((m) => m[2])).toEqual([file]);
    // Every later credential written to the file, by a command of its own: no warning.
    expect(add('staging')).not.toContain('plat: warning');
    expect(plat(['users', 'list', '-o', 'ids'])).not.toContain('plat: warning'); // bootstraps "local", storing its key
    expect(add('qa')).not.toContain('plat: warning');

    // The note beside the file holds the warning, to read again; without it, the next credential warns again.
    const note = `${file}.warned`;
    expect(readFileSync(note, 'utf8')).toBe(`${first.match(warning)?.[0].replace('plat: warning: ', '')}\n`);
    rmSync(note);
    expect(add('dev').match(warning)).toHaveLength(1);
    expect(existsSync(note)).toBe(true);
  });
});

describe('the keychain fallback warning, when the keychain comes and goes', () => {
  let w: CliWorld;
  beforeEach(() => {
    w = cliWorld();
  });
  afterEach(() => w.cleanup());

  it('is given again after a command found the keychain working', async () => {
    const keychain = fakeKeytar();
    const deps = { credentialStore: { loadKeytar: async () => keychain.keytar } };
    const add = (name: string) =>
      w.runCli(['profiles', 'add', name, '--base-url', `https://${name}.example.com/v2`, '--api-key-stdin'], {
        stdin: 'plat_live_k',
        deps,
      });
    keychain.state.broken = true;
    expect((await add('prod')).stderr.match(warning)).toHaveLength(1);
    expect((await add('staging')).stderr).not.toContain('plat: warning');

    keychain.state.broken = false;
    expect((await w.runCli(['auth', 'status'], { deps })).stderr).not.toContain('plat: warning');
    expect(existsSync(join(w.configDir, 'credentials.json.warned'))).toBe(false);

    keychain.state.broken = true;
    expect((await add('qa')).stderr.match(warning)).toHaveLength(1);
  });
});
