import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** A throw-away PostgreSQL cluster of the tests' own, on a loopback port. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication, loopback only). */
  url: string;
  port: number;
  /** Its temporary directory: the data directory, the socket and the server's log. */
  dir: string;
  /** Stops the server and removes its data directory. */
  stop(): void;
}

/** The binaries of the newest PostgreSQL (≥ 15) Debian's packages installed: /usr/lib/postgresql/<major>/bin. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .map(Number)
        .filter((n) => n >= 15)
        .sort((a, b) => b - a)
    : [];
  const bin = majors.map((m) => join(root, String(m), 'bin')).find((d) => existsSync(join(d, 'initdb')));
  if (!bin) throw new Error('PostgreSQL ≥ 15 is not installed (Debian: apt-get install postgresql; .ci/run does)');
  return bin;
}

/**
 * Starts a cluster in a temporary directory, as the `postgres` user when run as root (PostgreSQL refuses to run as
 * root), listening on 127.0.0.1 only and on a socket in its own directory.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'plat-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
    const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${command} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  const port = await freePort();
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400`;
  run(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop: () => {
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
