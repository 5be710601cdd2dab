import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAUNCHER_TUNABLES, usersTunables } from '../../src/startup/tunables.js';

describe("glibc's tunables for a start from the snapshot", () => {
  it('are put first by the launcher, before the user’s own, and only for the start from the snapshot', () => {
    const launcher = readFileSync(new URL('../../src/startup/launcher.sh', import.meta.url), 'utf8');
    const set = `GLIBC_TUNABLES=${LAUNCHER_TUNABLES}\${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}`;
    expect(launcher).toContain(`${set}\n    export GLIBC_TUNABLES\n    exec "$node" --no-rehash-snapshot`);
    expect(launcher.split('GLIBC_TUNABLES=')).toHaveLength(2);
  });

  it("give the user's value back, none when they had none, and leave a value the launcher did not make alone", () => {
    expect(usersTunables(LAUNCHER_TUNABLES)).toBeUndefined();
    expect(usersTunables(`${LAUNCHER_TUNABLES}:glibc.malloc.arena_max=2`)).toBe('glibc.malloc.arena_max=2');
    expect(usersTunables(`${LAUNCHER_TUNABLES}:${LAUNCHER_TUNABLES}`)).toBe(LAUNCHER_TUNABLES);
    expect(usersTunables(`${LAUNCHER_TUNABLES}:`)).toBeUndefined();
    expect(usersTunables(undefined)).toBeUndefined();
    expect(usersTunables('glibc.malloc.arena_max=2')).toBe('glibc.malloc.arena_max=2');
    expect(usersTunables(`${LAUNCHER_TUNABLES}0`)).toBe(`${LAUNCHER_TUNABLES}0`);
  });
});
