// `npm run bench -- bulk`: bulk provisioning (issue 13), each figure taken in this one run.
//
// - `plat users import` of a CSV of BENCH_BULK_USERS rows (default 100,000) into the embedded platform, and into a
//   `plat serve` on loopback (Enterprise plan, rate limits on): wall time and the importing process's peak memory;
//   the peak for a tenth of the rows beside it (flat memory: the ratio stays near 1).
// - The same people invited one `plat users invite` process each (a sample, per row): the ratio to the import.
// - `plat users export` of everyone, as CSV: wall time and peak memory.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const PLAT_JS = fileURLToPath(new URL('../bin/plat.js', import.meta.url));
const ROWS = Number(process.env.BENCH_BULK_USERS ?? 100_000);
const INVITES = 20;

/** Writes a users CSV of `n` rows: e-mail, name, role, teams, two metadata columns (one of them numbers). */
async function writeCsv(path, n, prefix) {
  const out = createWriteStream(path);
  const write = (s) => (out.write(s) ? undefined : new Promise((r) => out.once('drain', r)));
  await write('email,name,role,teams,metadata.department,metadata.level\n');
  for (let i = 0; i < n; i++) {
    const team = i % 3 === 0 ? 'Engineering;Operations' : 'Sales';
    await write(`${prefix}${i}@example.test,"Person ${i}, the ${i % 7}th",member,${team},Dept ${i % 40},${i % 9}\n`);
  }
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
}

/** Runs `plat ARGS` as Node.js runs bin/plat.js: wall time, peak resident memory (from the process itself), stderr. */
function plat(args, env, input) {
  const rssFile = join(env.PLAT_DATA_DIR, '..', `rss-${process.hrtime.bigint()}`);
  const preload = join(env.PLAT_DATA_DIR, '..', 'rss.cjs');
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', preload, PLAT_JS, ...args], {
    env: { ...env, BENCH_RSS_FILE: rssFile },
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`plat ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  return { ms, rssMb, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** An environment of its own: config, data (the embedded platform), file credentials. */
function environment(dir) {
  writeFileSync(
    join(dir, 'rss.cjs'),
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
  );
  return {
    ...process.env,
    PLAT_CONFIG_DIR: join(dir, 'config'),
    PLAT_DATA_DIR: join(dir, 'data'),
    PLAT_CREDENTIAL_STORE: 'file',
    NO_COLOR: '1',
  };
}

/** Starts `plat serve` on a free loopback port for the database; its URL once it listens. */
async function serve(env, db) {
  const child = spawn(process.execPath, [PLAT_JS, '--db', db, 'serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const look = (chunk) => {
      seen += chunk;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
      if (m) resolve(m[0]);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => reject(new Error(`plat serve exited ${code}: ${seen}`)));
  });
  const stop = () =>
    new Promise((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGTERM');
    });
  return { url, stop };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export async function bulkBench() {
  const dir = mkdtempSync(join(tmpdir(), 'plat-bench-bulk-'));
  try {
    const env = environment(dir);
    for (const team of ['Engineering', 'Operations', 'Sales']) plat(['teams', 'create', team], env);
    const csv = join(dir, 'users.csv');
    const tenth = join(dir, 'tenth.csv');
    await writeCsv(csv, ROWS, 'person');
    await writeCsv(tenth, ROWS / 10, 'tenth');
    const rows = ROWS.toLocaleString('en');
    console.log(
      `\nBulk provisioning, ${rows} rows (targets: embedded < 30 s, served < 60 s, export < 10 s, < 200 MB):`,
    );

    const invites = [];
    for (let i = 0; i < INVITES; i++) invites.push(plat(['users', 'invite', `invited${i}@example.test`], env).ms);
    const perInvite = invites.reduce((a, b) => a + b, 0) / INVITES;

    const small = plat(['users', 'import', tenth], env);
    const embedded = plat(['users', 'import', csv], env);
    console.log(
      `  import, embedded                          ${seconds(embedded.ms).padStart(8)}  peak ${embedded.rssMb.toFixed(0)} MB` +
        ` (${(ROWS / 10).toLocaleString('en')} rows: ${small.rssMb.toFixed(0)} MB, ×${(embedded.rssMb / small.rssMb).toFixed(2)})`,
    );
    console.log(
      `  one plat users invite per row instead     ${seconds(perInvite * ROWS).padStart(8)}  (${perInvite.toFixed(0)} ms each, ` +
        `${INVITES} measured): the import is ${((perInvite * ROWS) / embedded.ms).toFixed(0)}× faster`,
    );
    const again = plat(['users', 'import', csv], env);
    console.log(`  the same file again (all unchanged)       ${seconds(again.ms).padStart(8)}`);

    const out = join(dir, 'export.csv');
    const exported = plat(['users', 'export', '--output', out], env);
    console.log(
      `  export, embedded, CSV                     ${seconds(exported.ms).padStart(8)}  peak ${exported.rssMb.toFixed(0)} MB`,
    );

    // A served platform of its own, on the Enterprise plan, rate limits on.
    const served = join(dir, 'served.db');
    const init = JSON.parse(plat(['--db', served, 'local', 'init', '--json'], env).stdout);
    const db = new Database(served);
    db.prepare("UPDATE organizations SET plan = 'enterprise'").run();
    db.close();
    const server = await serve(env, served);
    try {
      plat(['profiles', 'add', 'served', '--base-url', server.url, '--api-key-stdin'], env, init.apiKey);
      for (const team of ['Engineering', 'Operations', 'Sales'])
        plat(['--profile', 'served', 'teams', 'create', team], env);
      const remote = plat(['--profile', 'served', 'users', 'import', csv], env);
      console.log(
        `  import into plat serve (Enterprise)       ${seconds(remote.ms).padStart(8)}  peak ${remote.rssMb.toFixed(0)} MB`,
      );
      const remoteExport = plat(['--profile', 'served', 'users', 'export', '--output', join(dir, 'served.csv')], env);
      console.log(
        `  export from plat serve, CSV               ${seconds(remoteExport.ms).padStart(8)}  peak ${remoteExport.rssMb.toFixed(0)} MB`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
