// `npm run bench -- server`: the throughput and latency of `plat serve` answering `GET /users/{id}` (an API key, rate
// limits off, SQLite), as a ratio to a bare `node:http` server answering the same bytes, measured with autocannon
// (16 connections), interleaved in rounds. Each server runs in a process of its own; autocannon runs in this one.
// On Linux it also reports the CPU time each server spent a request (user and system, from /proc): a figure that
// other work on the machine disturbs less than the throughput. For scale, it also loads the bare server given a fixed
// amount of work a request (a busy loop of WORK_US µs standing for a request's own work: authentication, reads,
// validation), which shows what a ratio costs on this machine: the budget a request's work has to stay within; and a
// bare server that does only the two reads every such request needs (the key by its hash with its owner's standing,
// then the user: the platform's own SQL on its file, through better-sqlite3 without any layer), the floor of any
// server that checks its credential at every request.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROUNDS = Number(process.env.BENCH_SERVER_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SERVER_SECONDS ?? 5);
const CONNECTIONS = 16;
const WORK_US = [10, 20];
const SELF = fileURLToPath(import.meta.url);

/** Starts this file as a server process in the given role; resolves with the JSON line it prints once listening. */
function child(role, ...args) {
  const proc = spawn(process.execPath, [SELF, role, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ proc, ...JSON.parse(line) });
    });
    proc.once('exit', (code) => reject(new Error(`${role} exited ${code}`)));
  });
}

/** The CPU time a process has spent so far, in µs (utime + stime in /proc, at Linux's 100 ticks a second); NaN elsewhere. */
function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** Loads a server; its result carries `cpu`, the server's CPU time a request in µs. */
async function load({ url, proc }, headers) {
  const before = cpuMicros(proc.pid);
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  return { ...result, cpu: (cpuMicros(proc.pid) - before) / result.requests.total };
}

export async function serverBench() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-server-'));
  const procs = [];
  try {
    const plat = await child('platform', join(dir, 'platform.db'));
    procs.push(plat.proc);
    const bare = await child('bare', plat.body);
    procs.push(bare.proc);
    const reads = await child('reads', plat.body, join(dir, 'platform.db'), plat.userId);
    procs.push(reads.proc);
    const busy = [];
    for (const us of WORK_US) {
      busy.push(await child('bare', plat.body, String(us)));
      procs.push(busy.at(-1).proc);
    }
    const headers = { 'x-api-key': plat.key };
    await load(plat, headers); // warm both up (JIT, SQLite's cache)
    await load(bare, {});
    await load(reads, headers);
    for (const server of busy) await load(server, {});
    const rows = [];
    for (let i = 0; i < ROUNDS; i++) {
      const p = await load(plat, headers);
      const b = await load(bare, {});
      const r = await load(reads, headers);
      const w = [];
      for (const server of busy) w.push(await load(server, {}));
      if ([p, b, r, ...w].some((x) => x.non2xx || x.errors)) throw new Error('a request failed during the benchmark');
      rows.push({ plat: p, bare: b, reads: r, busy: w, ratio: p.requests.average / b.requests.average });
    }
    const ratios = rows.map((r) => r.ratio).sort((a, b) => a - b);
    const mid = rows.find((r) => r.ratio === ratios[Math.floor(ratios.length / 2)]);
    console.log(
      `\nplat serve, GET /users/{id} with an API key (SQLite, rate limits off), ${CONNECTIONS} connections, ` +
        `${ROUNDS} interleaved rounds of ${SECONDS} s (target: ≥ 0.5× bare node:http):`,
    );
    const lines = [
      ['bare node:http, the same bytes', mid.bare],
      ['plat serve', mid.plat],
      ['bare node:http + the two reads', mid.reads],
      ...WORK_US.map((us, i) => [`bare node:http + ${us} µs of work`, mid.busy[i]]),
    ];
    for (const [label, r] of lines) {
      const cpu = Number.isNaN(r.cpu) ? '' : `  CPU ${r.cpu.toFixed(1)} µs a request`;
      const ratio = r === mid.bare ? '' : `  ${(r.requests.average / mid.bare.requests.average).toFixed(2)}×`;
      console.log(
        `  ${label.padEnd(32)} ${String(Math.round(r.requests.average)).padStart(7)} req/s  ` +
          `p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms${cpu}${ratio}`,
      );
    }
    console.log(`  ratio, each round: ${rows.map((r) => `${r.ratio.toFixed(2)}×`).join(', ')} (median shown)`);
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function platformServer(db) {
  const { startServer } = await import('../dist/platform/server.js');
  const { bootstrap } = await import('../dist/platform/index.js');
  const server = await startServer({ db, port: 0, limits: { enabled: false }, logger: () => {} });
  const made = await bootstrap(server.platform.base(), {
    orgName: 'Acme',
    email: 'owner@acme.test',
    name: 'Olive Owner',
  });
  const url = `${server.url}/v2/users/${made.userId}`;
  const res = await fetch(url, { headers: { 'x-api-key': made.apiKey } });
  if (res.status !== 200) throw new Error(`GET /users/{id} answered ${res.status}`);
  const body = await res.text();
  process.stdout.write(`${JSON.stringify({ url, key: made.apiKey, body, userId: made.userId })}\n`);
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
}

/** The bare server; with `workUs`, it first spins that many µs a request. */
async function bareServer(body, workUs) {
  const { createServer } = await import('node:http');
  const bytes = Buffer.from(body);
  const work = BigInt(Math.round(Number(workUs ?? 0) * 1000));
  const server = createServer((_req, res) => {
    if (work > 0n) {
      const until = process.hrtime.bigint() + work;
      while (process.hrtime.bigint() < until);
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    res.end(bytes);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/` })}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

/**
 * The bare server that first reads what the platform reads for `GET /users/{id}` with an API key: the key by the
 * SHA-256 of the `X-API-Key` header, joined with its owner's standing, then the user (the platform's SQL); it refuses
 * with 401 a key not found, and answers the same bytes as the bare server.
 */
async function readsServer(body, db, userId) {
  const { createServer } = await import('node:http');
  const { hash } = await import('node:crypto');
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db);
  const key = sqlite.prepare(
    'select "k".*, "m"."role" as "owner_role", "m"."status" as "owner_status" from "api_keys" as "k" ' +
      'left join "org_users" as "m" on "m"."org_id" = "k"."org_id" and "m"."user_id" = "k"."user_id" ' +
      'where "k"."secret_hash" = ?',
  );
  const user = sqlite.prepare(
    'select "m".*, "a"."email_verified" from "org_users" as "m" inner join "accounts" as "a" on "a"."id" = "m"."user_id" ' +
      'where "m"."org_id" = ? and "m"."user_id" = ?',
  );
  const bytes = Buffer.from(body);
  const server = createServer((req, res) => {
    const found = key.get(hash('sha256', String(req.headers['x-api-key']), 'hex'));
    if (!found || !user.get(found.org_id, userId)) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    res.end(bytes);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/` })}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

const [role, ...args] = process.argv.slice(2);
if (role === 'platform') await platformServer(args[0]);
else if (role === 'bare') await bareServer(args[0], args[1]);
else if (role === 'reads') await readsServer(...args);
