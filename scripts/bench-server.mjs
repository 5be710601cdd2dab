// `npm run bench -- server`: the throughput and latency of `plat serve` answering `GET /users/{id}` (an API key, rate
// limits off, SQLite), as a ratio to a bare `node:http` server answering the same bytes, measured with autocannon
// (16 connections), interleaved in rounds. Each server runs in a process of its own; autocannon runs in this one.
// On Linux it also reports the CPU time each server spent a request (user and system, from /proc): a figure that
// other work on the machine disturbs less than the throughput.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROUNDS = Number(process.env.BENCH_SERVER_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SERVER_SECONDS ?? 5);
const CONNECTIONS = 16;
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
    const headers = { 'x-api-key': plat.key };
    await load(plat, headers); // warm both up (JIT, SQLite's cache)
    await load(bare, {});
    const rows = [];
    for (let i = 0; i < ROUNDS; i++) {
      const p = await load(plat, headers);
      const b = await load(bare, {});
      if (p.non2xx || p.errors || b.non2xx || b.errors) throw new Error('a request failed during the benchmark');
      rows.push({ plat: p, bare: b, ratio: p.requests.average / b.requests.average });
    }
    const ratios = rows.map((r) => r.ratio).sort((a, b) => a - b);
    const mid = rows.find((r) => r.ratio === ratios[Math.floor(ratios.length / 2)]);
    console.log(
      `\nplat serve, GET /users/{id} with an API key (SQLite, rate limits off), ${CONNECTIONS} connections, ` +
        `${ROUNDS} interleaved rounds of ${SECONDS} s (target: ≥ 0.5× bare node:http):`,
    );
    for (const [label, r] of [
      ['bare node:http, the same bytes', mid.bare],
      ['plat serve', mid.plat],
    ]) {
      const cpu = Number.isNaN(r.cpu) ? '' : `  CPU ${r.cpu.toFixed(1)} µs a request`;
      console.log(
        `  ${label.padEnd(32)} ${String(Math.round(r.requests.average)).padStart(7)} req/s  ` +
          `p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms${cpu}`,
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
  process.stdout.write(`${JSON.stringify({ url, key: made.apiKey, body })}\n`);
  process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
}

async function bareServer(body) {
  const { createServer } = await import('node:http');
  const bytes = Buffer.from(body);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    res.end(bytes);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/` })}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

const [role, arg] = process.argv.slice(2);
if (role === 'platform') await platformServer(arg);
else if (role === 'bare') await bareServer(arg);
