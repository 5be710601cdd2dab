/**
 * A command run once while the startup snapshot is built (snapshot.ts), so that the snapshot holds the functions every
 * command calls already compiled: V8 keeps the bytecode of a function that has run, and compiles any other one when
 * it is first called — at every start. `plat users list` is run in-process, as the binary runs it, against a
 * configuration and a stored credential in a temporary directory, and answered by the platform's own HTTP side —
 * the request pipeline, authentication, validation, the operation — over stores that answer
 * from a canned page; the platform's SQLite side runs apart, over a stand-in addon (SQLite's cannot be loaded while a
 * snapshot is built). Commander, the settings, the credential store, the client, the light `Request`/`Response` and
 * the output are all exercised too, and `plat --help`'s formatting.
 *
 * Nothing of it may stay behind: the temporary directory is removed, the light `Request`/`Response`/`Headers` are
 * used through `__platWeb` and never in place of Node's globals (light-fetch.ts `useLightFetch`), its timers are
 * cleared (snapshot.ts), and no module keeps state from a run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { CREDENTIALS_FILE, FileCredentialStore } from '../auth/file-credential-store.js';
import { EMBEDDED_BASE_URL } from '../cli/embedded.js';
import { run } from '../cli/main.js';
import { saveConfig } from '../config/config.js';
import type { List } from '../contract/common.js';
import type { User } from '../contract/users.js';
import { cannedPlatform, createPlatform, generateApiKey, warmUpStores, withSqliteAddon } from '../platform/index.js';
import { useLightFetch } from './light-fetch.js';
import { SQLITE_STAND_IN } from './sqlite-stand-in.js';

const ORG = 'org_0000000000000000000000';
const AT = '2026-01-01T00:00:00.000Z';

/** Two users, as `GET /organizations/{orgId}/users` answers. */
function usersPage(): List<User> {
  const user = (n: number): User => ({
    id: `user_00000000000000000000${n}`,
    email: `user${n}@example.test`,
    name: `User ${n}`,
    avatarUrl: null,
    role: n === 1 ? 'owner' : 'member',
    status: 'active',
    emailVerified: true,
    lastLoginAt: null,
    createdAt: AT,
    updatedAt: AT,
    metadata: {},
  });
  return { data: [user(1), user(2)], pagination: { total: 2, page: 1, perPage: 20, totalPages: 1, hasMore: false } };
}

/**
 * The platform's SQLite side over the stand-in addon (sqlite-stand-in.ts), which finds nothing: createPlatform opens
 * and migrates a database and its bucket file, a request is refused for want of its key (charging the address's
 * bucket), and the stores `users list` reads run their queries.
 */
async function warmUpSqliteSide(dir: string, apiKey: string): Promise<void> {
  await withSqliteAddon(SQLITE_STAND_IN, async () => {
    const logged: string[] = [];
    const platform = await createPlatform({ db: join(dir, 'stand-in.db'), logger: (line) => void logged.push(line) });
    try {
      const url = `${EMBEDDED_BASE_URL}/organizations/${ORG}/users?limit=20`;
      const res = await platform.fetch(new Request(url, { headers: { 'X-API-Key': apiKey } }));
      if (res.status !== 401) {
        throw new Error(
          `over the SQLite stand-in, users list answered ${res.status}: ${[await res.text(), ...logged].join('\n')}`,
        );
      }
      await warmUpStores(platform, ORG, 'user_00000000000000000001');
    } finally {
      await platform.close();
    }
  });
}

/** A stream that keeps what is written to it. */
function collector(): { stream: Writable; text: string } {
  const kept = {
    text: '',
    stream: new Writable({
      write: (chunk, _encoding, done) => {
        kept.text += String(chunk);
        done();
      },
    }),
  };
  return kept;
}

/** Runs `plat users list`, piped and on a terminal, and `plat --help`; throws when one does not succeed (the build then fails). */
export async function warmUp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'plat-snapshot-'));
  const restore = useLightFetch();
  try {
    const config = join(dir, 'config');
    // An existing database file: the embedded platform counts as bootstrapped (the transport never opens it).
    const db = join(dir, 'local.db');
    writeFileSync(db, '');
    await saveConfig(config, { currentProfile: 'local', profiles: { local: { org: ORG, db } } });
    const apiKey = generateApiKey('live');
    await new FileCredentialStore(join(config, CREDENTIALS_FILE)).set('local', { apiKey });
    await warmUpSqliteSide(dir, apiKey);
    const logged: string[] = [];
    const platform = cannedPlatform(ORG, apiKey, usersPage(), { logger: (line) => void logged.push(line) });
    try {
      // `users list` once piped (tab-separated) and once on a terminal (the table); then the root help, whose
      // formatting (commander's) every `--help` shares.
      const runs: { argv: string[]; isTTY: boolean; shows: string }[] = [
        { argv: ['users', 'list'], isTTY: false, shows: 'user2@example.test' },
        { argv: ['users', 'list'], isTTY: true, shows: 'user2@example.test' },
        { argv: ['--help'], isTTY: false, shows: 'Usage: plat' },
      ];
      for (const { argv, isTTY, shows } of runs) {
        const [stdout, stderr] = [collector(), collector()];
        const code = await run(argv, {
          stdout: Object.assign(stdout.stream, { isTTY, columns: 100 }),
          stderr: stderr.stream,
          stdin: Readable.from([]),
          env: {
            PLAT_CONFIG_DIR: config,
            PLAT_DATA_DIR: join(dir, 'data'),
            PLAT_CREDENTIAL_STORE: 'file',
            NO_COLOR: '1',
          },
          cwd: dir,
          version: '0.0.0',
          transport: async () => ({
            fetch: (request) => platform.fetch(request as Request),
            baseUrl: EMBEDDED_BASE_URL,
            close() {},
          }),
        });
        if (code !== 0 || !stdout.text.includes(shows)) {
          const said = [stdout.text.trim(), stderr.text.trim(), ...logged].filter(Boolean).join('\n');
          throw new Error(`plat ${argv.join(' ')} exited ${code} while warming up, without "${shows}": ${said}`);
        }
      }
    } finally {
      // Its timers (the rate limiter's sweep) stopped: a snapshot must hold none (snapshot.ts, settleTimers).
      await platform.close();
    }
  } finally {
    restore();
    rmSync(dir, { recursive: true, force: true });
  }
}
