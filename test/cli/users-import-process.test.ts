import { once } from 'node:events';
import { createWriteStream, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanUpProcesses, processHome, type Run, servePlat, startPlat, startProcess } from '../helpers/spawn.js';

// `plat users import` as its own process: killed halfway (SIGKILL) on the embedded platform, interrupted (SIGINT)
// against `plat serve`, then resumed — every row created exactly once; and a million rows in flat memory.

afterAll(cleanUpProcesses);

/** The directory a spawned `plat` has as its home (the import's working directory here). */
const home = (env: Record<string, string>) => env.HOME as string;

const plat = (env: Record<string, string>, argv: string[], cwd?: string) => startPlat(env, argv, { cwd }).done;

/** `n` people, one CSV line each after the header. */
function writePeople(path: string, n: number): void {
  const lines = ['email,name,metadata.n'];
  for (let i = 0; i < n; i++) lines.push(`person${i}@example.com,Person ${i},${i}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/**
 * Resolves once the checkpoint at `path` records at least `batches` batches done; fails if the import ends first
 * (`ended`), rather than polling until the test's timeout.
 */
async function checkpointed(path: string, batches: number, ended: Promise<unknown>): Promise<void> {
  let over = false;
  void ended.then(() => {
    over = true;
  });
  while (!over) {
    try {
      const data = JSON.parse(readFileSync(path, 'utf8'));
      if (data.prefix.batches + data.done.length >= batches) return;
    } catch {} // not written yet, or being renamed into place
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`the import ended before ${batches} batches were checkpointed`);
}

/** How many `user.invited` events (one per user created) each e-mail has. */
async function createdCounts(env: Record<string, string>): Promise<Map<string, number>> {
  const r = await plat(env, ['events', 'list', '--type', 'user.invited', '--all', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const counts = new Map<string, number>();
  for (const e of JSON.parse(r.stdout) as { data: { email: string } }[]) {
    counts.set(e.data.email, (counts.get(e.data.email) ?? 0) + 1);
  }
  return counts;
}

/** Every person of `n` was created once, and nobody twice. */
function expectEachOnce(counts: Map<string, number>, n: number): void {
  expect(counts.size).toBe(n);
  expect([...counts.values()].every((c) => c === 1)).toBe(true);
  expect(counts.has('person0@example.com') && counts.has(`person${n - 1}@example.com`)).toBe(true);
}

/** The summary line of a finished resumed run: `Imported …: N rows (M of them by an earlier run) — N created, …`. */
const resumedSummary =
  /^Imported people\.csv: (\d+) rows \((\d+) of them by an earlier run\) — (\d+) created, 0 updated, (\d+) unchanged, 0 failed\.\n$/;

describe('users import as a process', () => {
  it('needs the build', () => {
    expect(existsSync(new URL('../../dist/bundle/main.js', import.meta.url)), 'run `npm run build` first').toBe(true);
  });

  it('killed halfway (SIGKILL) on the embedded platform, then --resume: every row created exactly once', async () => {
    const env = processHome('plat-import-kill');
    const n = 6000;
    writePeople(join(home(env), 'people.csv'), n);
    expect((await plat(env, ['local', 'init'])).code).toBe(0);
    const argv = ['users', 'import', 'people.csv', '--batch-size', '100'];
    const started = startPlat(env, argv, { cwd: home(env) });
    await checkpointed(join(home(env), 'people.csv.errors.jsonl.checkpoint'), 10, started.done);
    started.child.kill('SIGKILL');
    expect((await started.done).code).toBe(-1); // killed: no exit code

    // A batch in flight when it was killed was done, or not: either way it is sent again, and comes out unchanged.
    const resumed = await plat(env, [...argv, '--resume'], home(env));
    expect(resumed.code, resumed.stderr).toBe(0);
    const [, rows, earlier, created, unchanged] = (resumedSummary.exec(resumed.stderr) ?? []).map(Number);
    expect(rows).toBe(n);
    expect(earlier).toBeGreaterThanOrEqual(1000);
    expect(earlier).toBeLessThan(n);
    expect((created as number) + (unchanged as number)).toBe(n);
    expectEachOnce(await createdCounts(env), n);
    expect(existsSync(join(home(env), 'people.csv.errors.jsonl.checkpoint'))).toBe(false);

    const again = await plat(env, argv, home(env));
    expect(again).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `Imported people.csv: ${n} rows — 0 created, 0 updated, ${n} unchanged, 0 failed.\n`,
    });
  }, 120_000);

  it('against plat serve, Ctrl-C (SIGINT) finishes the batches in flight and exits 130; --resume does the rest', async () => {
    const serverEnv = processHome('plat-import-server');
    const made = JSON.parse((await plat(serverEnv, ['local', 'init', '--json'])).stdout);
    const server = await servePlat(serverEnv, ['--no-rate-limits']);
    const env: Record<string, string> = {
      ...processHome('plat-import-client'),
      PLAT_BASE_URL: server.url,
      PLAT_API_KEY: made.apiKey,
      PLAT_ORG: made.organizationId,
    };
    const n = 6000;
    writePeople(join(home(env), 'people.csv'), n);
    const argv = ['users', 'import', 'people.csv', '--batch-size', '100', '--concurrency', '3'];
    const started = startPlat(env, argv, { cwd: home(env) });
    await checkpointed(join(home(env), 'people.csv.errors.jsonl.checkpoint'), 10, started.done);
    started.child.kill('SIGINT');
    const stopped: Run = await started.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(
      /^Stopping: finishing the batches in flight \(Ctrl-C again stops at once; they are then sent again on --resume\)\nStopped importing people\.csv: (\d+) rows — \1 created, 0 updated, 0 unchanged, 0 failed; run the same command with --resume to go on\.\nplat: interrupted\n$/,
    );
    const done = Number(/: (\d+) rows/.exec(stopped.stderr)?.[1]);

    const resumed = await plat(env, [...argv, '--resume'], home(env));
    expect(resumed.code, resumed.stderr).toBe(0);
    // Stopped cleanly: what was done is exactly what the checkpoint says, so nothing comes out unchanged.
    expect(resumed.stderr).toBe(
      `Imported people.csv: ${n} rows (${done} of them by an earlier run) — ${n} created, 0 updated, 0 unchanged, 0 failed.\n`,
    );
    expectEachOnce(await createdCounts(env), n);
    server.child.kill('SIGTERM');
  }, 120_000);

  it('plat users import - reads a real pipe without --errors: failed rows and the summary on stderr', async () => {
    const env = processHome('plat-import-pipe');
    expect((await plat(env, ['local', 'init'])).code).toBe(0);
    const csv = 'email,name\\nada@example.com,Ada\\nnot-an-address,Bob\\ncy@example.com,Cy\\n';
    const r = await startProcess(
      'sh',
      ['-c', `printf '${csv}' | sh "$PLAT_BIN" users import -`],
      {
        ...env,
        PLAT_BIN: BIN,
      },
      { cwd: home(env) },
    ).done;
    expect(r).toMatchObject({
      code: 7,
      stdout: '',
      stderr:
        'line 3 not-an-address: email: must be an e-mail address\n' +
        'Imported stdin: 3 rows — 2 created, 0 updated, 0 unchanged, 1 failed; failed rows are listed above.\n' +
        'plat: 1 row failed: they are listed above\n',
    });
    expect(readdirSync(home(env)).filter((f) => f.includes('errors'))).toEqual([]);
  }, 60_000);

  it('an export piped into another platform creates its teams with --create-teams, each once', async () => {
    const [from, to] = [processHome('plat-export-from'), processHome('plat-import-to')];
    for (const argv of [
      ['local', 'init'],
      ['teams', 'create', 'Sales'],
      ['teams', 'create', 'R;D'],
    ]) {
      expect((await plat(from, argv)).code).toBe(0);
    }
    for (const [email, team] of [
      ['ada@example.com', 'Sales'],
      ['bob@example.com', 'R;D'],
    ] as const) {
      const teams = JSON.parse((await plat(from, ['teams', 'list', '--json'])).stdout) as {
        id: string;
        name: string;
      }[];
      const id = teams.find((t) => t.name === team)?.id as string;
      expect((await plat(from, ['users', 'invite', email, '--team', id])).code).toBe(0);
    }
    expect((await plat(to, ['local', 'init'])).code).toBe(0);
    const side = (env: Record<string, string>) =>
      `HOME='${env.HOME}' PLAT_CONFIG_DIR='${env.PLAT_CONFIG_DIR}' PLAT_DATA_DIR='${env.PLAT_DATA_DIR}'`;
    const pipe = `${side(from)} sh "$PLAT_BIN" users export | ${side(to)} sh "$PLAT_BIN" users import - --create-teams`;
    const r = await startProcess('sh', ['-c', pipe], { ...to, PLAT_BIN: BIN }, { cwd: home(to) }).done;
    expect(r).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        'Exported 3 users to stdout\n' +
        'Imported stdin: 3 rows — 2 created, 0 updated, 1 unchanged, 0 failed; 2 teams created: "R;D", "Sales".\n',
    });
    const teams = JSON.parse((await plat(to, ['teams', 'list', '--json'])).stdout) as { name: string }[];
    expect(teams.map((t) => t.name).sort()).toEqual(['R;D', 'Sales']);
  }, 60_000);

  it.runIf(process.platform === 'linux')(
    'streams a million rows in flat memory: peak resident size under 200 MB',
    async () => {
      // The platform's own pace (SQLite) would make this test minutes long: a server that answers each batch at once,
      // as the contract says (1% of the items failed), sets the pace instead, so that the CLI's work is what is measured.
      const server: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as { users: { email: string }[] };
          const results = body.users.map((u, index) =>
            index % 100 === 7
              ? {
                  index,
                  email: u.email,
                  outcome: 'failed',
                  userId: null,
                  error: { code: 'conflict', message: 'differs' },
                }
              : { index, email: u.email, outcome: 'created', userId: `user_${index}`, error: null },
          );
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ results, summary: { created: 0, updated: 0, unchanged: 0, failed: 0 } }));
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const port = (server.address() as AddressInfo).port;
      const env: Record<string, string> = {
        ...processHome('plat-import-million'),
        PLAT_BASE_URL: `http://127.0.0.1:${port}/v2`,
        // Any key of the right form: the stand-in peer checks none.
        PLAT_API_KEY: `plat_live_${'x'.repeat(32)}`,
        PLAT_ORG: 'org_1',
      };
      const n = 1_000_000;
      const file = createWriteStream(join(home(env), 'people.csv'));
      file.write('email,name,role,teams,metadata.plan,metadata.seats\n');
      for (let i = 0; i < n; i++) {
        const line = `person${i}@example.com,"Person ${i}, the ${i % 7}th",member,Engineering;Research,gold,${i % 100}\n`;
        if (!file.write(line)) await once(file, 'drain');
      }
      file.end();
      await once(file, 'close');

      const started = startPlat(env, ['users', 'import', 'people.csv'], { cwd: home(env), timeoutMs: 180_000 });
      let peakKb = 0;
      const watch = setInterval(() => {
        try {
          const status = readFileSync(`/proc/${started.child.pid}/status`, 'utf8');
          peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
        } catch {} // it has exited
      }, 20);
      const r = await started.done;
      clearInterval(watch);
      server.close();
      expect(r).toMatchObject({
        code: 7,
        stderr:
          `Imported people.csv: ${n} rows — 990000 created, 0 updated, 0 unchanged, 10000 failed; failed rows are ` +
          'in people.csv.errors.jsonl.\nplat: 10000 rows failed: see people.csv.errors.jsonl (line, e-mail, reason)\n',
      });
      const errors = readFileSync(join(home(env), 'people.csv.errors.jsonl'), 'utf8')
        .trim()
        .split('\n');
      expect(errors.length).toBe(10_000);
      expect(JSON.parse(errors[0] as string)).toEqual({
        line: 9,
        email: 'person7@example.com',
        code: 'conflict',
        message: 'differs',
      });
      expect(peakKb).toBeGreaterThan(0);
      expect(peakKb / 1024).toBeLessThan(200);
    },
    240_000,
  );
});
