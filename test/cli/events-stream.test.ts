import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followEvents } from '../../src/cli/event-follow.js';
import type { PlatformClient } from '../../src/client/client.js';
import { LISTEN_SECRETS_FILE, listenSecret } from '../../src/config/listen-secret.js';
import type { ServerSentEvent } from '../../src/contract/endpoint.js';
import { type CliWorld, cliWorld } from '../helpers/cli.js';
import { cleanUpProcesses, processHome, type Run, servePlat, startPlat } from '../helpers/spawn.js';

/**
 * `plat events tail` and `plat events listen` (docs/cli.md, "Events"): the last events in-process against the embedded
 * platform; following as real processes — against `plat serve` (through a restart of the server on the same database
 * file) and against the embedded platform itself — and forwarding to a real receiver on loopback, whose signatures
 * the `standardwebhooks` package verifies. How a follower resumes (from the position the stream sends first, then from
 * each event), over a scripted stream; and how two runs share one new listen secret.
 */

afterAll(cleanUpProcesses);

describe('plat events tail (the last events)', () => {
  let w: CliWorld;
  beforeAll(async () => {
    w = cliWorld();
    // One write a second, so that the order is the clock's.
    for (const argv of [
      ['users', 'invite', 'a@acme.test'],
      ['users', 'invite', 'b@acme.test'],
      ['projects', 'create', 'Billing'],
      ['users', 'invite', 'c@acme.test'],
    ]) {
      w.clock.advance(1000);
      expect((await w.runCli(argv)).code).toBe(0);
    }
  }, 30_000); // the bootstrap hashes a password: slow on a loaded machine
  afterAll(() => w.cleanup());

  it('prints the last N, oldest first, one line each (time, type, actor, target); NDJSON with --json', async () => {
    const listed = JSON.parse((await w.runCli(['events', 'list', '--limit', '3', '--json'])).stdout);
    const last3 = [...listed].reverse();
    const tail = await w.runCli(['events', 'tail', '--limit', '3']);
    expect(tail).toMatchObject({ code: 0, stderr: '' });
    const line = (e: { createdAt: string; type: string; actor: { type: string; id: string }; target: any }) =>
      `${e.createdAt}  ${e.type.padEnd(24)}  ${e.actor.type}:${e.actor.id}  ${e.target.type}:${e.target.id}`;
    expect(tail.stdout).toBe(last3.map((e: any) => `${line(e)}\n`).join(''));
    expect(last3.map((e: { type: string }) => e.type)).toEqual(['user.invited', 'project.created', 'user.invited']);
    expect(tail.stdout.split('\n')[0]).toMatch(
      /^2026-01-01T00:00:02\.000Z {2}user\.invited {14}api_key:key_\w+ {2}user:/,
    );

    const ndjson = await w.runCli(['events', 'tail', '--limit', '2', '--json']);
    expect(ndjson.code).toBe(0);
    expect(ndjson.stdout.split('\n')).toHaveLength(3); // two lines and the final newline
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(last3.slice(1));
    expect((await w.runCli(['events', 'tail', '--limit', '2', '-o', 'ids'])).stdout).toBe(
      `${last3[1].id}\n${last3[2].id}\n`,
    );
    // 20 by default: fewer exist here, so all of them, the bootstrap's first.
    const all = (await w.runCli(['events', 'tail', '--json'])).stdout.trim().split('\n');
    expect(all.length).toBeGreaterThan(4);
    expect(all.length).toBeLessThan(20);
    expect(JSON.parse(all[0] as string).type).toBe('organization.created');
    expect((await w.runCli(['events', 'tail', '--limit', '0'])).stdout).toBe('');
  });

  it('takes several --type as any of them (one type through the list’s filter)', async () => {
    const types = async (argv: string[]) => {
      const r = await w.runCli(['events', 'tail', ...argv, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => {
          const e = JSON.parse(l);
          return `${e.type} ${e.target.type}`;
        });
    };
    expect(await types(['--type', 'user.invited', '--type', 'project.created', '--limit', '3'])).toEqual([
      'user.invited user',
      'project.created project',
      'user.invited user',
    ]);
    expect(await types(['--type', 'project.created', '--type', 'user.invited'])).toEqual([
      'user.invited user',
      'user.invited user',
      'project.created project',
      'user.invited user',
    ]);
    expect(await types(['--type', 'user.invited', '--limit', '2'])).toEqual(['user.invited user', 'user.invited user']);
    expect((await w.runCli(['events', 'tail', '--type', 'nothing.here'])).stdout).toBe('');
  });

  it('refuses what cannot be an event type (7), CSV (2), a limit out of range (7)', async () => {
    expect(await w.runCli(['events', 'tail', '--type', 'User'])).toMatchObject({
      code: 7,
      stderr: 'plat: --type "User": must be an event type such as user.created\n',
    });
    expect(await w.runCli(['events', 'tail', '-o', 'csv'])).toMatchObject({
      code: 2,
      stderr: 'plat: events tail prints lines, NDJSON (--json) or ids (-o ids), not CSV\n',
    });
    expect(await w.runCli(['events', 'tail', '--limit', '1001'])).toMatchObject({
      code: 7,
      stderr: expect.stringContaining('expected a whole number from 0 to 1000'),
    });
  });
});

/** An event record as the stream sends it. */
const sse = (id: string, type = 'user.invited'): ServerSentEvent => ({
  id,
  event: type,
  data: JSON.stringify({ id, type }),
});
/** A position record: the stream's starting point. */
const position = (id: string): ServerSentEvent => ({ id, event: '', data: '' });

/**
 * A client whose event stream plays `connections` in turn (each a list of records, then an end — or a thrown error),
 * recording the `Last-Event-ID` each was opened with.
 */
function scripted(connections: (ServerSentEvent | Error)[][]) {
  const opened: (string | undefined)[] = [];
  const client = {
    events: {
      stream: async (_org: string, o: { lastEventId?: string }) => {
        opened.push(o.lastEventId);
        const records = connections[opened.length - 1];
        if (!records) throw Object.assign(new Error('refused'), { status: 403 });
        return (async function* () {
          for (const r of records) {
            if (r instanceof Error) throw r;
            yield r;
          }
        })();
      },
    },
  } as unknown as PlatformClient;
  return { client, opened };
}

/** The ids `followEvents` gives out until the script runs out (its last connection refused: 403). */
async function follow(client: PlatformClient): Promise<{ ids: string[]; end: unknown }> {
  const ids: string[] = [];
  try {
    for await (const e of followEvents(client, 'org_1', { signal: new AbortController().signal })) {
      ids.push(e.id);
    }
  } catch (err) {
    return { ids, end: err };
  }
  return { ids, end: undefined };
}

describe('followEvents (resuming from the positions the stream gives)', () => {
  const lost = () => Object.assign(new Error('socket hang up'), { kind: 'network' });

  it('opens without Last-Event-ID; resumes from the starting point before any event, then from each', async () => {
    const { client, opened } = scripted([
      [position('pos_start'), lost()],
      [position('pos_again'), sse('evt_1'), sse('evt_2'), lost()],
      [position('pos_later')],
      [sse('evt_3')],
    ]);
    const { ids, end } = await follow(client);
    expect(ids).toEqual(['evt_1', 'evt_2', 'evt_3']);
    // A position is never given out, but moves the resume point: the last one, or the last event, whichever is later.
    expect(opened).toEqual([undefined, 'pos_start', 'evt_2', 'pos_later', 'evt_3']);
    expect(end).toMatchObject({ status: 403 });
  });

  it('without a position (a server that sends none), opens afresh until the first event', async () => {
    const { client, opened } = scripted([[lost()], [sse('evt_1'), lost()], []]);
    expect((await follow(client)).ids).toEqual(['evt_1']);
    expect(opened).toEqual([undefined, undefined, 'evt_1', 'evt_1']);
  });

  it('calls onOpen once the first connection is open, before any event; throws when the first cannot open', async () => {
    const { client } = scripted([[position('pos_1'), sse('evt_1'), lost()], [sse('evt_2')]]);
    const log: string[] = [];
    const signal = new AbortController().signal;
    await expect(
      (async () => {
        for await (const e of followEvents(client, 'org_1', { signal, onOpen: () => void log.push('open') })) {
          log.push(e.id);
        }
      })(),
    ).rejects.toMatchObject({ status: 403 });
    expect(log).toEqual(['open', 'evt_1', 'evt_2']);
    const down = {
      events: {
        stream: async () => {
          throw Object.assign(new Error('connect ECONNREFUSED'), { kind: 'network', errno: 'ECONNREFUSED' });
        },
      },
    } as unknown as PlatformClient;
    expect((await follow(down)).end).toMatchObject({ kind: 'network', errno: 'ECONNREFUSED' });
  });
});

describe('listenSecret (one secret per profile, whichever run makes it)', () => {
  it('uses the secret of a run whose write is in progress, not one of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plat-listen-secret-'));
    const path = join(dir, LISTEN_SECRETS_FILE);
    // Another run has claimed the write; it renames its file into place while this one waits.
    writeFileSync(`${path}.new`, '');
    const theirs = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    let waits = 0;
    const sleep = async () => {
      if (++waits === 3) {
        // The other run's rename of its claim into place, which ends the claim.
        writeFileSync(`${path}.new`, JSON.stringify({ secrets: { 'profile:a': theirs } }));
        renameSync(`${path}.new`, path);
      }
    };
    expect(await listenSecret(dir, 'profile:a', sleep)).toEqual({ secret: theirs, path });
    expect(waits).toBe(3);
    // A second key is added next to the first, which stays.
    const other = await listenSecret(dir, 'profile:b', sleep);
    expect(other.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      secrets: { 'profile:a': theirs, 'profile:b': other.secret },
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes over a write abandoned for 5 s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plat-listen-secret-'));
    const path = join(dir, LISTEN_SECRETS_FILE);
    writeFileSync(`${path}.new`, '{"secrets": {');
    const old = new Date(Date.now() - 6000);
    utimesSync(`${path}.new`, old, old);
    const { secret } = await listenSecret(dir, 'profile:a', async () => {
      throw new Error('no wait expected');
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ secrets: { 'profile:a': secret } });
    rmSync(dir, { recursive: true, force: true });
  });
});

/** A spawned process's stdout and stderr as they grow. */
function watched(child: ChildProcess): { out: () => string; err: () => string } {
  let [out, err] = ['', ''];
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return { out: () => out, err: () => err };
}

/** Waits until `ok` holds (checked every 50 ms), failing with `what` after `ms`. */
async function until(ok: () => boolean, what: () => string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const plat = async (env: Record<string, string>, argv: string[]): Promise<Run> => {
  const r = await startPlat(env, argv, { start: 'node' }).done;
  expect(r.code, r.stderr).toBe(0);
  return r;
};

/** An event of `--json` output, in part. */
type Ev = { id: string; type: string };

/** The invitations among NDJSON lines, by e-mail (from the event's data). */
const parse = (ndjson: string) =>
  ndjson
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { id: string; type: string; data: Record<string, unknown> });

describe('plat events tail --follow (real processes)', () => {
  it('prints what is written meanwhile, through a restart of plat serve, missing and repeating nothing', async () => {
    const home = processHome('plat-tail-serve');
    const init = JSON.parse((await plat(home, ['local', 'init', '--json'])).stdout);
    const first = await servePlat(home);
    const port = new URL(first.url).port;
    const remote = { ...home, PLAT_BASE_URL: first.url, PLAT_API_KEY: init.apiKey };
    const tail = startPlat(remote, ['events', 'tail', '--follow', '--limit', '1', '--json'], {
      start: 'node',
      timeoutMs: 40_000,
    });
    const io = watched(tail.child);
    await until(() => io.err().includes('Waiting for new events'), io.err);
    const before = parse(io.out());
    expect(before).toHaveLength(1);

    await plat(remote, ['users', 'invite', 'one@acme.test']);
    await until(() => io.out().includes('one@acme.test'), io.out);
    // The server stops (its streams end); meanwhile the embedded platform writes to the same file; it comes back.
    first.child.kill('SIGTERM');
    await new Promise((r) => first.child.once('exit', r));
    await plat(home, ['users', 'invite', 'two@acme.test']);
    await plat(home, ['projects', 'create', 'Offline']);
    await until(() => io.err().includes('reconnecting'), io.err);
    await servePlat(home, ['--port', port]);
    await plat(remote, ['users', 'invite', 'three@acme.test']);
    await until(
      () => io.out().includes('three@acme.test'),
      () => io.out() + io.err(),
    );

    tail.child.kill('SIGINT');
    const ended = await tail.done;
    expect(ended.code, ended.stderr).toBe(0);
    const printed = parse(ended.stdout);
    // Exactly the events after the one printed first, in order: the list (newest first) says what they are.
    const listed = await plat(remote, ['events', 'list', '--limit', '20', '--json']);
    const log = (JSON.parse(listed.stdout) as { id: string }[]).reverse();
    const since = log.slice(log.findIndex((e) => e.id === before[0]?.id));
    expect(printed.map((e) => e.id)).toEqual(since.map((e) => e.id));
    expect(new Set(printed.map((e) => e.id)).size).toBe(printed.length);
    expect(printed.filter((e) => e.type === 'user.invited')).toHaveLength(3);
    expect(printed.some((e) => e.type === 'project.created')).toBe(true);
  }, 45_000);

  it('resumes from the stream’s starting point when the server stops before any event: misses nothing', async () => {
    const home = processHome('plat-tail-position');
    const init = JSON.parse((await plat(home, ['local', 'init', '--json'])).stdout);
    const first = await servePlat(home);
    const port = new URL(first.url).port;
    const remote = { ...home, PLAT_BASE_URL: first.url, PLAT_API_KEY: init.apiKey };
    const tail = startPlat(remote, ['events', 'tail', '-f', '--limit', '0', '-o', 'ids'], {
      start: 'node',
      timeoutMs: 40_000,
    });
    const io = watched(tail.child);
    await until(() => io.err().includes('Waiting for new events'), io.err);
    first.child.kill('SIGTERM');
    await new Promise((r) => first.child.once('exit', r));
    // Written while no server streams: after the starting point, so printed once the server is back.
    await plat(home, ['users', 'invite', 'offline@acme.test']);
    await until(() => io.err().includes('reconnecting'), io.err);
    await servePlat(home, ['--port', port]);
    await plat(remote, ['users', 'invite', 'online@acme.test']);
    const listed = async () =>
      (JSON.parse((await plat(remote, ['events', 'list', '--json'])).stdout) as Ev[]).reverse();
    const invited = (await listed()).filter((e) => e.type === 'user.invited').map((e) => e.id);
    expect(invited).toHaveLength(2);
    await until(
      () => io.out().includes(invited[1] as string),
      () => io.out() + io.err(),
    );
    tail.child.kill('SIGINT');
    const ended = await tail.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toBe(`${invited.join('\n')}\n`);
  }, 45_000);

  it('follows the embedded platform (no server): sees what another plat process writes', async () => {
    const home = processHome('plat-tail-embedded');
    await plat(home, ['local', 'init']);
    const tail = startPlat(home, ['events', 'tail', '-f', '--limit', '0', '--type', 'user.invited'], { start: 'node' });
    const io = watched(tail.child);
    await until(() => io.err().includes('Waiting for new events'), io.err);
    await plat(home, ['projects', 'create', 'Skipped']);
    await plat(home, ['users', 'invite', 'ada@acme.test']);
    await until(() => io.out().includes('user.invited'), io.out);
    tail.child.kill('SIGINT');
    const ended = await tail.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}user\.invited {14}api_key:key_\w+ {2}user:user_\w+\n$/);
  });
});

/** A receiver on loopback: records each request, answers 200. */
async function receiver(): Promise<{
  url: string;
  got: { headers: IncomingHttpHeaders; body: string }[];
  close(): void;
}> {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, got, close: () => server.close() };
}

describe('plat events listen --forward-to (real processes)', () => {
  it('forwards new events, signed with a secret the same from run to run; failures do not stop it', async () => {
    const home = processHome('plat-listen');
    const init = JSON.parse((await plat(home, ['local', 'init', '--json'])).stdout);
    const server = await servePlat(home);
    const remote = { ...home, PLAT_BASE_URL: server.url, PLAT_API_KEY: init.apiKey };
    const hook = await receiver();
    const secretOf = (stderr: string) => /Signing secret: (whsec_\S+)/.exec(stderr)?.[1];

    const listen = startPlat(remote, ['events', 'listen', '--forward-to', hook.url, '--event', 'user.invited'], {
      start: 'node',
    });
    const io = watched(listen.child);
    await until(() => secretOf(io.err()) !== undefined, io.err);
    const secret = secretOf(io.err()) as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await plat(remote, ['projects', 'create', 'Not forwarded']);
    await plat(remote, ['users', 'invite', 'ada@acme.test']);
    await until(() => hook.got.length >= 1 && io.out().includes('→'), io.out);
    listen.child.kill('SIGINT');
    const ended = await listen.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toContain('Stopped: forwarded 1 event.');
    expect(hook.got).toHaveLength(1);

    const [{ headers, body }] = hook.got as [{ headers: IncomingHttpHeaders; body: string }];
    const verified = new Webhook(secret).verify(body, headers as Record<string, string>) as Record<string, any>;
    const event = verified.data;
    expect(verified).toEqual({ type: 'user.invited', timestamp: event.createdAt, data: event });
    expect(body).toBe(JSON.stringify({ type: event.type, timestamp: event.createdAt, data: event }));
    expect(event).toMatchObject({
      type: 'user.invited',
      organizationId: init.organizationId,
      target: { type: 'user' },
    });
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['content-type']).toBe('application/json');
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(body, headers as any)).toThrow();
    expect(ended.stdout).toMatch(
      new RegExp(
        `^${event.createdAt.replace(/\./g, '\\.')} {2}user\\.invited {2}${event.id} {2}→ 200 \\(\\d+ ms\\)\\n$`,
      ),
    );
    // Kept in the configuration directory, for the owner only.
    expect(statSync(join(home.PLAT_CONFIG_DIR as string, 'listen-secrets.json')).mode & 0o777).toBe(0o600);

    // A second run, with --json: the same secret. Its receiver is gone: each forward fails, and listening goes on.
    hook.close();
    const again = startPlat(remote, ['events', 'listen', '--forward-to', hook.url, '--json'], { start: 'node' });
    const io2 = watched(again.child);
    await until(() => secretOf(io2.err()) !== undefined, io2.err);
    expect(secretOf(io2.err())).toBe(secret);
    await plat(remote, ['users', 'invite', 'bob@acme.test']);
    await plat(remote, ['projects', 'create', 'Still listening']);
    await until(() => (io2.out().match(/ECONNREFUSED/g) ?? []).length >= 2, io2.out);
    again.child.kill('SIGINT');
    const second = await again.done;
    expect(second.code, second.stderr).toBe(0);
    // NDJSON: one object per forward, in the order the events came.
    const lines = second.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: 'user.invited',
        status: null,
        ms: expect.any(Number),
        error: 'ECONNREFUSED',
      },
      {
        id: expect.stringMatching(/^evt_/),
        type: 'project.created',
        status: null,
        ms: expect.any(Number),
        error: 'ECONNREFUSED',
      },
    ]);
  }, 45_000);
});
