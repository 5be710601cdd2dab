/**
 * A command run once while the startup snapshot is built (src/cli/snapshot.ts), so that the snapshot holds the
 * functions every command calls already compiled: V8 keeps the bytecode of a function that has run, and compiles
 * any other one when it is first called — at every start. `plat users list` is run in-process, as the binary runs
 * it, against a configuration and a stored credential in a temporary directory and a canned answer in place of the
 * platform (whose SQLite addon cannot be loaded while a snapshot is built): commander, the settings, the credential
 * store, the client, the light `Request`/`Response` and the output are all exercised, and the platform validates the
 * query the client sent as the route does (zod compiles its parsers on first use).
 *
 * Nothing of it may stay behind: the temporary directory is removed, the global `Request`/`Response`/`Headers` are
 * put back (Node's, still unloaded), and no module keeps state from a run (see snapshot.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { CREDENTIALS_FILE, FileCredentialStore } from '../auth/file-credential-store.js';
import { LightResponse, useLightFetch } from '../client/light-fetch.js';
import { EMBEDDED_BASE_URL } from '../client/transports.js';
import { saveConfig } from '../config/config.js';
import type { List } from '../contract/common.js';
import { type User, userListQuerySchema } from '../contract/users.js';
import { parseQuery } from '../platform/http/validate.js';
import { run } from './main.js';

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

/** Runs `plat users list`, piped and on a terminal; throws when it does not succeed (the build then fails). */
export async function warmUp(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'plat-snapshot-'));
  const restore = useLightFetch();
  try {
    const config = join(dir, 'config');
    // An existing database file: the embedded platform counts as bootstrapped (the transport never opens it).
    const db = join(dir, 'local.db');
    await writeFile(db, '');
    await saveConfig(config, { currentProfile: 'local', profiles: { local: { org: ORG, db } } });
    await new FileCredentialStore(join(config, CREDENTIALS_FILE)).set('local', {
      apiKey: `plat_live_${'0'.repeat(38)}`,
    });

    const body = JSON.stringify(usersPage());
    // Once piped (tab-separated) and once on a terminal (the table).
    for (const isTTY of [false, true]) {
      let stderr = '';
      const stdout = Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), {
        isTTY,
        columns: 100,
      });
      const code = await run(['users', 'list'], {
        stdout,
        stderr: new Writable({
          write: (chunk, _encoding, done) => {
            stderr += String(chunk);
            done();
          },
        }),
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
          fetch: async (request) => {
            // The platform's side of it: the query the client sent, validated as the route validates it.
            parseQuery(new URL(request.url), userListQuerySchema);
            return new LightResponse(body, { headers: { 'Content-Type': 'application/json' } }) as unknown as Response;
          },
          baseUrl: EMBEDDED_BASE_URL,
          close() {},
        }),
      });
      if (code !== 0) throw new Error(`plat users list exited ${code} while warming up: ${stderr.trim()}`);
    }
  } finally {
    restore();
    await rm(dir, { recursive: true, force: true });
  }
}
