import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { METADATA_COLUMN, metadataValue, restoreText, teamsOfCell } from '../../src/cli/bulk/cells.js';
import { ID_PREFIX } from '../../src/contract/ids.js';
import type { User } from '../../src/contract/users.js';
import { createPlatform } from '../../src/platform/index.js';
import type { CliResult, CliWorld } from './cli.js';
import { send } from './platform.js';

/** Runs `plat …` and expects it to succeed. */
export async function ok(w: CliWorld, argv: string[]): Promise<CliResult> {
  const r = await w.runCli(argv);
  expect(r.code, `plat ${argv.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

/**
 * A small organization with everything CSV makes hard, made through plat itself: user_0001 the owner
 * (admin@localhost), then invited user_0002 … user_0006 — a name with a comma and quotes, one a spreadsheet would
 * run (`=HYPERLINK(…)`), one on two lines, one in several scripts, none (suspended). Metadata of every type, text
 * that reads as a number ("42") or a formula ("+1 555", "=1+1"); teams Design, Engineering, R;D (team_0002: its
 * name holds the separator) and @ops.
 */
export async function trickyOrg(w: CliWorld): Promise<void> {
  const invite = (email: string, ...rest: string[]) => ok(w, ['users', 'invite', email, ...rest]);
  await invite('ada@example.com', '--name', 'Lovelace, Ada "the Countess"', '--role', 'admin');
  await invite('grace@example.com', '--name', '=HYPERLINK("http://evil.test","x")');
  await invite('lines@example.com', '--name', 'First line\nsecond line');
  await invite('zoe@example.com', '--name', 'Zoë Ünïcødé 日本語 🎉');
  await invite('nameless@example.com');
  await ok(w, ['users', 'suspend', 'user_0006', '--yes']);
  const api = (method: string, path: string, body: unknown) =>
    ok(w, ['api', method, path, '--data', JSON.stringify(body)]);
  await api('PATCH', '/users/user_0002', {
    metadata: { plan: 'gold', seats: 42, code: '42', phone: '+1 555', vip: true, ratio: 0.5 },
  });
  await api('PATCH', '/users/user_0003', { metadata: { plan: '=1+1', vip: false, note: "'quoted" } });
  for (const name of ['Engineering', 'R;D', 'Design', '@ops']) await ok(w, ['teams', 'create', name]);
  const join = (team: string, user: string) => api('POST', `/teams/${team}/members`, { userId: user });
  await join('team_0001', 'user_0002');
  await join('team_0002', 'user_0002');
  await join('team_0003', 'user_0003');
  await join('team_0001', 'user_0005');
  await join('team_0004', 'user_0005');
}

/** The teams of trickyOrg's users, by name (CSV writes R;D as team_0002). */
export const TRICKY_TEAMS: Record<string, string[]> = {
  user_0002: ['Engineering', 'R;D'],
  user_0003: ['Design'],
  user_0005: ['@ops', 'Engineering'],
};

/**
 * Adds `n` invited users (seed0001@example.com …, ids user_s0001 … so they sort after the world's own), their
 * metadata, and a team "Crowd" holding the first `crowd`, through the API of a platform opened on the CLI's own
 * database file (limits off: the seeding is not what the test is about).
 */
export async function manyUsers(w: CliWorld, n: number, crowd: number): Promise<void> {
  const counters = new Map<string, number>();
  const ids = (kind: keyof typeof ID_PREFIX) => {
    const next = (counters.get(kind) ?? 0) + 1;
    counters.set(kind, next);
    return `${ID_PREFIX[kind]}_s${String(next).padStart(4, '0')}`;
  };
  const platform = await createPlatform({
    db: join(w.dataDir, 'local.db'),
    clock: w.clock,
    ids,
    publicUrl: 'http://plat.test',
    logger: () => {},
    limits: { enabled: false },
  });
  const call = async (method: string, path: string, body: unknown) => {
    const r = await send((req) => platform.fetch(req), 'http://plat.test', w.storedKey() ?? null, method, path, {
      body,
    });
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body;
  };
  try {
    const team = await call('POST', '/organizations/org_0001/teams', { name: 'Crowd' });
    for (let i = 1; i <= n; i++) {
      const seq = String(i).padStart(4, '0');
      const invited = await call('POST', '/organizations/org_0001/users', {
        email: `seed${seq}@example.com`,
        name: `Seed ${seq}, "the ${i}th"`,
        role: i % 10 === 0 ? 'admin' : 'member',
      });
      const metadata = i % 2 === 0 ? { n: i, even: true } : { tag: `-${i}`, [`only${i % 3}`]: String(i) };
      await call('PATCH', `/users/${invited.userId}`, { metadata });
      if (i <= crowd) await call('POST', `/teams/${team.id}/members`, { userId: invited.userId });
    }
  } finally {
    platform.close();
  }
}

/** What an importer makes of a row of plat's CSV: the fields given, with their values and types back. */
export interface ReadBack {
  id: string;
  email: string;
  name?: string;
  role: string;
  status: string;
  teams: string[];
  createdAt: string;
  lastLoginAt?: string;
  metadata: Record<string, string | number | boolean>;
}

/** Reads an export's CSV back with csv-parse and the cells' inverses, as `plat users import` does. */
export function readBack(csv: string): ReadBack[] {
  const rows = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
  return rows.map((row) => {
    const text = (column: string) => {
      const cell = row[column] ?? '';
      return cell === '' ? undefined : restoreText(cell);
    };
    const metadata: ReadBack['metadata'] = {};
    for (const [column, cell] of Object.entries(row)) {
      if (column.startsWith(METADATA_COLUMN) && cell !== '') {
        metadata[column.slice(METADATA_COLUMN.length)] = metadataValue(cell);
      }
    }
    const teams = text('teams');
    return {
      id: text('id') as string,
      email: text('email') as string,
      ...(text('name') !== undefined && { name: text('name') }),
      role: text('role') as string,
      status: text('status') as string,
      teams: teams === undefined ? [] : teamsOfCell(teams),
      createdAt: text('createdAt') as string,
      ...(text('lastLoginAt') !== undefined && { lastLoginAt: text('lastLoginAt') }),
      metadata,
    };
  });
}

/** The same fields of users as the API gives them, to compare with {@link readBack}. */
export function fieldsOf(users: User[], teams: (id: string) => string[]): ReadBack[] {
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    ...(u.name !== null && { name: u.name }),
    role: u.role,
    status: u.status,
    teams: teams(u.id),
    createdAt: u.createdAt,
    ...(u.lastLoginAt !== null && { lastLoginAt: u.lastLoginAt }),
    metadata: u.metadata,
  }));
}

/** Every user, oldest first, as `plat users list --all --json` prints them. */
export async function allUsers(w: CliWorld): Promise<User[]> {
  const r = await ok(w, ['users', 'list', '--all', '--sort', 'created_at', '--order', 'asc', '--json']);
  return JSON.parse(r.stdout) as User[];
}
