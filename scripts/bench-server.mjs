// `npm run bench -- server`: `plat serve` as it ships — the `plat` binary, rate limits on, its access log on — answering
// `GET /users/{id}` with API keys, measured with autocannon (16 connections) in interleaved rounds, beside:
//   - a bare `node:http` server writing the same bytes (the ceiling);
//   - the floor: a bare `node:http` server that does only the two reads the platform must make for such a request —
//     the key by its hash with its owner's standing and its organization's plan, then the user (the platform's own SQL
//     on its file, through better-sqlite3 and nothing else) — and writes the same bytes;
//   - the floor answering what it read: the same, writing the user's row encoded as JSON instead of bytes made once
//     (what any server answering this request does beyond the two reads; a reference, not a goal);
//   - every step inline: the pipeline's steps for this request written by hand in one function (authentication, a
//     token bucket in memory, the permission, the id checked, the user encoded, request id, limit headers, access log)
//     — the least a complete server could do, so that plat's ratio can be read beside it (a reference, not a goal).
// Two loads of `plat serve`: served (300 keys of an Enterprise organization in turn, none past its budget) and refused
// (one key flooding far past its budget: nearly every answer a 429). Goals (issue 24): served ≥ 0.75× the floor,
// refusals a second ≥ 1.0× the floor's requests a second. Each server runs in a process of its own; autocannon runs in
// this one. On Linux it also reports the CPU time each server spent a request (from /proc): steadier than throughput
// on a machine shared with other work.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROUNDS = Number(process.env.BENCH_SERVER_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SERVER_SECONDS ?? 5);
const CONNECTIONS = 16;
const KEYS = 300;
const SELF = fileURLToPath(import.meta.url);
const PLAT = fileURLToPath(new URL('../bin/plat.js', import.meta.url));

/** Starts this file as a server process in the given role; resolves with the JSON line it prints once listening. */
function child(role, ...args) {
  // The inline server's stderr is its access log: read and dropped, as `plat serve`'s is.
  const proc = spawn(process.execPath, [SELF, role, ...args], {
    stdio: ['ignore', 'pipe', role === 'inline' ? 'pipe' : 'inherit'],
  });
  proc.stderr?.resume();
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

/** A port free right now on loopback. */
function freePort() {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** `plat serve` as a user starts it (the binary; its stderr, where the access log goes, to /dev/null). */
async function platServe(dir) {
  const env = { ...process.env, PLAT_DATA_DIR: dir, PLAT_CONFIG_DIR: dir, PLAT_CREDENTIAL_STORE: 'file' };
  const db = join(dir, 'platform.db');
  const made = JSON.parse(
    execFileSync(process.execPath, [PLAT, 'local', 'init', '--db', db, '--org', 'Acme', '--json'], { env }),
  );
  const port = await freePort();
  const proc = spawn(process.execPath, [PLAT, 'serve', '--db', db, '--port', String(port)], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  await new Promise((resolve, reject) => {
    let said = '';
    const onData = (chunk) => {
      said += chunk;
      if (said.includes('Listening on')) {
        // Read no more of it: from here on, the access log goes where a user's would when nobody watches.
        proc.stderr.off('data', onData);
        proc.stderr.resume();
        resolve();
      }
    };
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`plat serve exited ${code}: ${said}`)));
  });
  const call = async (method, path, key, body) => {
    const res = await fetch(`${url}/v2${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body && { 'content-type': 'application/json' }) },
      body: body && JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  // The keys the served load takes in turn, each of the owner, as a CI job would have its own.
  const keys = [];
  for (let i = 0; i < KEYS; i++) {
    const created = await call('POST', `/organizations/${made.organizationId}/api-keys`, made.apiKey, {
      name: `bench ${i}`,
      environment: 'live',
    });
    keys.push(created.key);
  }
  const path = `/users/${made.userId}`;
  const body = await fetch(`${url}/v2${path}`, { headers: { 'x-api-key': keys[0] } }).then((r) => r.text());
  return { proc, url: `${url}/v2${path}`, keys, flood: made.apiKey, body, db, userId: made.userId };
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

/**
 * Loads a server; `keys` are sent in turn, one a request (each connection walks the list: autocannon builds each
 * request's bytes once, so the load costs the same whatever the number of keys). Its result carries `cpu`, the
 * server's CPU time a request in µs.
 */
async function load({ url, proc }, keys) {
  const before = cpuMicros(proc.pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: keys.map((key) => ({ method: 'GET', headers: { 'x-api-key': key } })),
  });
  const statuses = result.statusCodeStats ?? {};
  return { ...result, statuses, cpu: (cpuMicros(proc.pid) - before) / result.requests.total };
}

/** Requests a second that were answered with `status`. */
function rateOf(r, status) {
  return (r.statuses[status]?.count ?? 0) / SECONDS;
}

export async function serverBench() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-server-'));
  const procs = [];
  try {
    const plat = await platServe(dir);
    procs.push(plat.proc);
    const bare = await child('bare', plat.body);
    procs.push(bare.proc);
    const floor = await child('reads', plat.body, plat.db, plat.userId);
    procs.push(floor.proc);
    const encoding = await child('reads', plat.body, plat.db, plat.userId, 'encode');
    procs.push(encoding.proc);
    const inline = await child('inline', plat.db);
    procs.push(inline.proc);
    inline.url = `${inline.url.replace(/\/$/, '')}/v2/users/${plat.userId}`;
    // The reference must answer what plat answers, byte for byte.
    const inlineBody = await fetch(inline.url, { headers: { 'x-api-key': plat.keys[0] } }).then((r) => r.text());
    if (inlineBody !== plat.body) throw new Error(`the inline server answers ${inlineBody}, plat ${plat.body}`);
    // Warm all up (JIT, SQLite's cache); the flood also spends its key's burst, so that every later round is refused.
    await load(plat, plat.keys);
    await load(plat, [plat.flood]);
    await load(bare, ['-']);
    await load(floor, plat.keys);
    await load(encoding, plat.keys);
    await load(inline, plat.keys);
    const rows = [];
    for (let i = 0; i < ROUNDS; i++) {
      const served = await load(plat, plat.keys);
      const flood = await load(plat, [plat.flood]);
      const b = await load(bare, ['-']);
      const f = await load(floor, plat.keys);
      const e = await load(encoding, plat.keys);
      const n = await load(inline, plat.keys);
      if ([served, b, f, e, n].some((x) => x.non2xx || x.errors) || flood.errors) {
        throw new Error('a request failed during the benchmark');
      }
      rows.push({
        served,
        flood,
        bare: b,
        floor: f,
        encoding: e,
        inline: n,
        encodingRatio: e.requests.average / f.requests.average,
        inlineRatio: n.requests.average / f.requests.average,
        servedToInline: served.requests.average / n.requests.average,
        servedRatio: served.requests.average / f.requests.average,
        refusedRatio: rateOf(flood, 429) / f.requests.average,
      });
    }
    const median = (pick) => {
      const sorted = [...rows].sort((a, b) => pick(a) - pick(b));
      return sorted[Math.floor(sorted.length / 2)];
    };
    const mid = median((r) => r.servedRatio);
    const midFlood = median((r) => r.refusedRatio);
    console.log(
      `\nplat serve as it ships (the binary, rate limits on, access log on), GET /users/{id} with API keys (SQLite), ` +
        `${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s ` +
        '(goals: served ≥ 0.75× the floor, refusals ≥ 1.0× the floor):',
    );
    const line = (label, r, rate, base) => {
      const cpu = Number.isNaN(r.cpu) ? '' : `  CPU ${r.cpu.toFixed(1)} µs a request`;
      const ratio = base === undefined ? '' : `  ${(rate / base).toFixed(2)}× the floor`;
      console.log(
        `  ${label.padEnd(44)} ${String(Math.round(rate)).padStart(7)} /s  ` +
          `p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms${cpu}${ratio}`,
      );
    };
    const floorRate = mid.floor.requests.average;
    line('bare node:http, the same bytes', mid.bare, mid.bare.requests.average, floorRate);
    line('the floor: bare node:http + the two reads', mid.floor, floorRate);
    const midEncoding = median((r) => r.encodingRatio);
    line(
      'the floor answering the row as JSON',
      midEncoding.encoding,
      midEncoding.encoding.requests.average,
      midEncoding.floor.requests.average,
    );
    const midInline = median((r) => r.inlineRatio);
    line(
      'every step inline (hand-written)',
      midInline.inline,
      midInline.inline.requests.average,
      midInline.floor.requests.average,
    );
    line(`plat serve, served (${KEYS} keys in turn)`, mid.served, mid.served.requests.average, floorRate);
    line(
      'plat serve, refused (one key flooding: 429s)',
      midFlood.flood,
      rateOf(midFlood.flood, 429),
      midFlood.floor.requests.average,
    );
    console.log(
      `  served, each round: ${rows.map((r) => `${r.servedRatio.toFixed(2)}×`).join(', ')}; ` +
        `refused, each round: ${rows.map((r) => `${r.refusedRatio.toFixed(2)}×`).join(', ')}; ` +
        `the floor answering JSON, each round: ${rows.map((r) => `${r.encodingRatio.toFixed(2)}×`).join(', ')}; ` +
        `every step inline, each round: ${rows.map((r) => `${r.inlineRatio.toFixed(2)}×`).join(', ')} (medians shown)`,
    );
    const toInline = median((r) => r.servedToInline).servedToInline;
    console.log(
      `  plat serve served ÷ every step inline: ${toInline.toFixed(2)}× at the median ` +
        `(rounds ${rows.map((r) => `${r.servedToInline.toFixed(2)}×`).join(', ')})`,
    );
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bare server. */
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

/** The platform's first read for a request with an API key: the key by its hash, its owner's standing, its plan. */
const KEY_READ =
  'select "k".*, "m"."role" as "owner_role", "m"."status" as "owner_status", "o"."plan" as "org_plan" ' +
  'from "api_keys" as "k" ' +
  'left join "org_users" as "m" on "m"."org_id" = "k"."org_id" and "m"."user_id" = "k"."user_id" ' +
  'left join "organizations" as "o" on "o"."id" = "k"."org_id" where "k"."secret_hash" = ?';
/** Its second for `GET /users/{id}`: the member with their account's verification. */
const USER_READ =
  'select "m".*, "a"."email_verified" from "org_users" as "m" inner join "accounts" as "a" on "a"."id" = "m"."user_id" ' +
  'where "m"."org_id" = ? and "m"."user_id" = ?';

/**
 * The floor: the bare server that first reads what the platform must read for `GET /users/{id}` with an API key — the
 * key by the SHA-256 of the `X-API-Key` header, joined with its owner's standing and its organization's plan, then the
 * user (the platform's SQL) — refuses with 401 a key not found, and answers the same bytes as the bare server. With
 * `encode`, it answers the user's row as read, encoded as JSON, instead.
 */
async function readsServer(body, db, userId, encode) {
  const { createServer } = await import('node:http');
  const { hash } = await import('node:crypto');
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db);
  const key = sqlite.prepare(KEY_READ);
  const user = sqlite.prepare(USER_READ);
  const bytes = Buffer.from(body);
  const server = createServer((req, res) => {
    const found = key.get(hash('sha256', String(req.headers['x-api-key']), 'hex'));
    const row = found && user.get(found.org_id, userId);
    if (!row) {
      res.writeHead(401).end();
      return;
    }
    const answer = encode ? Buffer.from(JSON.stringify(row)) : bytes;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': answer.length });
    res.end(answer);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/` })}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

/**
 * Every step written inline: what the pipeline does for this request, by hand in one function on node:http, with
 * nothing shared between servers — the least a complete server could do, to read plat's ratio beside (a reference,
 * not a goal). A request id from the platform's own generator (or the client's, if valid); the key's form and
 * checksum, then its hash read with its owner's standing and its organization's plan (the floor's first read), the key
 * refused if revoked or expired or its owner not active; the plan's token bucket for that key, in this process's
 * memory (plat's buckets are shared by every server and command on the database: see docs/rate-limits.md); the
 * permission (`users:read` in the key's own list, or its owner's role's); the path's user id checked; the user read
 * (the floor's second read) and encoded as the API does; the `X-Request-Id` and `X-RateLimit-*` headers; an access-log
 * line, written once per turn of the event loop to stderr as `plat serve` writes its own.
 */
async function inlineServer(db) {
  const { createServer } = await import('node:http');
  const { default: Database } = await import('better-sqlite3');
  const { hashSecret, parseApiKey } = await import('../dist/platform/auth/api-keys.js');
  const { randomIds } = await import('../dist/platform/clock.js');
  const { PLAN_LIMITS } = await import('../dist/contract/limits.js');
  const { ORG_ROLE_PERMISSIONS } = await import('../dist/contract/permissions.js');
  const { REQUEST_ID } = await import('../dist/platform/http/reply.js');
  const sqlite = new Database(db);
  const key = sqlite.prepare(KEY_READ);
  const user = sqlite.prepare(USER_READ);
  const ids = randomIds();
  const USER_ID = /^user_[0-9A-Za-z]{1,64}$/;
  const buckets = new Map();
  let lines = [];
  const flush = () => {
    const text = lines.join('\n');
    lines = [];
    process.stderr.write(`${text}\n`);
  };
  const send = (res, status, body, headers) => {
    const bytes = Buffer.from(body);
    res.writeHead(status, [...headers, 'content-type', 'application/json', 'content-length', String(bytes.length)]);
    res.end(bytes);
    return status;
  };
  const refuse = (res, id, status, code, message, headers = []) =>
    send(res, status, JSON.stringify({ error: { code, message, status, requestId: id } }), [
      'x-request-id',
      id,
      ...headers,
    ]);
  const answer = (req, res, id, path) => {
    if (req.method !== 'GET' || !path.startsWith('/v2/users/')) return refuse(res, id, 404, 'not_found', 'no route');
    const secret = req.headers['x-api-key'];
    if (typeof secret !== 'string' || !parseApiKey(secret)) return refuse(res, id, 401, 'unauthorized', 'no key');
    const k = key.get(hashSecret(secret));
    const now = Date.now();
    if (!k || k.revoked_at !== null || (k.expires_at !== null && Date.parse(k.expires_at) <= now))
      return refuse(res, id, 401, 'unauthorized', 'invalid API key');
    if (k.owner_status !== 'active') return refuse(res, id, 403, 'forbidden', 'the key owner may not act');
    const rule = PLAN_LIMITS[k.org_plan];
    let bucket = buckets.get(k.id);
    if (!bucket) {
      bucket = { tokens: rule.burst, at: now };
      buckets.set(k.id, bucket);
    }
    bucket.tokens = Math.min(rule.burst, bucket.tokens + ((now - bucket.at) * rule.perMinute) / 60_000);
    bucket.at = now;
    const limits = [
      'x-ratelimit-limit',
      String(rule.perMinute),
      'x-ratelimit-remaining',
      String(Math.max(0, Math.floor(bucket.tokens - 1))),
      'x-ratelimit-reset',
      String(Math.ceil((now + ((rule.burst - bucket.tokens) * 60_000) / rule.perMinute) / 1000)),
    ];
    if (bucket.tokens < 1) return refuse(res, id, 429, 'rate_limited', 'slow down', limits);
    bucket.tokens -= 1;
    const granted = k.permissions === null ? ORG_ROLE_PERMISSIONS[k.owner_role] : JSON.parse(k.permissions);
    if (!granted.includes('users:read')) return refuse(res, id, 403, 'forbidden', 'missing users:read', limits);
    let userId;
    try {
      userId = decodeURIComponent(path.slice('/v2/users/'.length));
    } catch {
      userId = '';
    }
    if (!USER_ID.test(userId)) return refuse(res, id, 400, 'invalid_request', 'invalid user id', limits);
    const r = user.get(k.org_id, userId);
    if (!r) return refuse(res, id, 404, 'not_found', 'resource not found', limits);
    const body = JSON.stringify({
      id: r.user_id,
      email: r.email,
      name: r.name,
      avatarUrl: r.avatar_url,
      status: r.status,
      emailVerified: r.email_verified === 1 && r.joined_at !== null,
      role: r.role,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      lastLoginAt: r.last_login_at,
      metadata: JSON.parse(r.metadata),
    });
    return send(res, 200, body, ['x-request-id', id, ...limits]);
  };
  const server = createServer((req, res) => {
    const started = performance.now();
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : ids('request');
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const status = answer(req, res, id, path);
    const ms = (performance.now() - started).toFixed(1);
    if (lines.length === 0) setImmediate(flush);
    lines.push(`${req.socket.remoteAddress} ${req.method} ${path} ${status} ${ms}ms ${id}`);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/` })}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

const [role, ...args] = process.argv.slice(2);
if (role === 'bare') await bareServer(args[0]);
else if (role === 'reads') await readsServer(...args);
else if (role === 'inline') await inlineServer(...args);
