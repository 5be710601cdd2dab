import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `plat` (tests that spawn it need `npm run build` first; `npm test` does it). */
export const BIN = fileURLToPath(new URL('../../bin/plat.js', import.meta.url));

/**
 * How a spawned `plat` starts: `launcher` as an npm install on a POSIX system runs it — bin/plat.js read by the
 * shell, which starts Node.js from the startup snapshot (with the `node` on the PATH); `node` as everywhere else,
 * `node bin/plat.js`.
 */
export type Start = 'launcher' | 'node';

function command(start: Start, argv: string[]): [string, string[]] {
  return start === 'launcher' ? ['sh', [BIN, ...argv]] : [process.execPath, [BIN, ...argv]];
}

/** What one spawned `plat` did. */
export interface Run {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

const homes: string[] = [];
const children: ChildProcess[] = [];

/** A fresh home for a spawned `plat`: its own config and data directories, the file credential store. */
export function processHome(prefix: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  homes.push(dir);
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    PLAT_CONFIG_DIR: join(dir, 'config'),
    PLAT_DATA_DIR: join(dir, 'data'),
    PLAT_CREDENTIAL_STORE: 'file',
  };
}

/** How a process is started: its environment, working directory, what stdin holds, a time limit, a stderr watcher. */
export interface StartOptions {
  input?: string;
  timeoutMs?: number;
  /** Sees stderr as it grows (to find a URL while the command waits). */
  watch?: (stderr: string) => void;
  cwd?: string;
  /**
   * When the process ends, end whatever it left running in the background too (a shell script's `plat serve &`): it
   * runs in a process group of its own, which is stopped as soon as the process exits.
   */
  stopGroupOnExit?: boolean;
}

/** Starts `file args…` with pipes for stdin, stdout and stderr (so no terminal) and captures what it writes. */
export function startProcess(
  file: string,
  args: string[],
  env: Record<string, string>,
  opts: StartOptions = {},
): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(file, args, {
    env,
    cwd: opts.cwd,
    timeout: opts.timeoutMs ?? 20_000,
    detached: opts.stopGroupOnExit === true,
  });
  children.push(child);
  if (opts.stopGroupOnExit) {
    child.once('exit', () => {
      try {
        process.kill(-(child.pid as number), 'SIGTERM');
      } catch {} // nothing was left running
    });
  }
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    opts.watch?.(stderr);
  });
  child.stdin.end(opts.input ?? '');
  const done = new Promise<Run>((resolve) =>
    child.once('close', (code) => resolve({ argv: args, code: code ?? -1, stdout, stderr })),
  );
  return { child, done };
}

/** Starts `plat …` as its own process, by default through the launcher (see `startProcess`). */
export function startPlat(
  env: Record<string, string>,
  argv: string[],
  opts: StartOptions & { start?: Start } = {},
): { child: ChildProcess; done: Promise<Run> } {
  const [file, args] = command(opts.start ?? 'launcher', argv);
  const started = startProcess(file, args, env, opts);
  return { child: started.child, done: started.done.then((run) => ({ ...run, argv })) };
}

/** Kills what is still running and removes every home made: for `afterAll`. */
export function cleanUpProcesses(): void {
  for (const c of children) c.kill('SIGKILL');
  for (const h of homes) rmSync(h, { recursive: true, force: true });
}

/**
 * The built plat's embedded platform made in a fresh home (`plat local init`, its owner `admin@localhost` with
 * `password`) and served (`plat serve …extra`): what the end-to-end sign-in tests start from. Needs `npm run build`.
 */
export async function servedWithOwner(
  name: string,
  password: string,
  extra: string[] = [],
): Promise<{ env: Record<string, string>; server: Awaited<ReturnType<typeof servePlat>> }> {
  if (!existsSync(new URL('../../dist/bundle/main.js', import.meta.url))) {
    throw new Error('run `npm run build` first (npm test does)');
  }
  const env = processHome(name);
  const init = await startPlat(env, ['local', 'init', '--password', password, '--json']).done;
  if (init.code !== 0) throw new Error(`plat local init failed: ${init.stderr}`);
  return { env, server: await servePlat(env, extra) };
}

/** Starts `plat serve --port 0 …args` with `env` and resolves with the URL it prints, once it listens. */
export function servePlat(
  env: Record<string, string>,
  extra: string[] = [],
): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const [file, args] = command('launcher', ['serve', '--port', '0', ...extra]);
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const m = /Listening on (\S+)\/v2/.exec(log);
      if (m) resolve({ url: m[1] as string, child, log: () => log });
    });
    child.once('exit', (code) => reject(new Error(`plat serve exited (${code}): ${log}`)));
  });
}
