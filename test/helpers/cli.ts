import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { CliDeps, Transport } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { fixedClock, sequentialIds } from '../../src/platform/clock.js';
import { createPlatform } from '../../src/platform/index.js';

/** What one in-process run printed, and its exit code; `stdout`/`stderr` made stable with `stable()`. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Exactly what was written, for greps. */
  raw: { stdout: string; stderr: string };
}

export interface RunOptions {
  /** stdin, stdout and stderr are terminals (tables, colour unless NO_COLOR, prompts). */
  tty?: boolean;
  env?: Record<string, string | undefined>;
  /** What stdin holds (a confirmation answer, a piped secret, a file's bytes). */
  stdin?: string | Buffer;
  /** Extra dependencies (e.g. `onShutdown`). */
  deps?: Partial<CliDeps>;
  /** Called after every write to stderr with everything written so far (to wait for `serve`'s URL). */
  onStderr?: (text: string) => void;
}

/** A fresh temporary home for the CLI (config and data directories) over which runs share a fixed clock and ids. */
export interface CliWorld {
  dir: string;
  configDir: string;
  dataDir: string;
  env: Record<string, string>;
  clock: ReturnType<typeof fixedClock>;
  /** Runs `plat <argv>` in-process and captures everything. */
  runCli(argv: string[], opts?: RunOptions): Promise<CliResult>;
  /** The transport runs get (the embedded platform with the world's clock and ids): tests wrap it to inject faults. */
  transport: NonNullable<CliDeps['transport']>;
  /** The bootstrap API key, read from the file credential store (to prove it is never printed). */
  storedKey(account?: string): string | undefined;
  /** Every file the CLI wrote under its config directory, concatenated. */
  configFiles(): string;
  cleanup(): void;
}

/** A writable that keeps what is written, with the `isTTY` a terminal would have. */
function capture(tty: boolean, onWrite?: (text: string) => void): Writable & { isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(chunk.toString());
      onWrite?.(chunks.join(''));
      cb();
    },
  }) as Writable & { isTTY: boolean; text(): string };
  stream.isTTY = tty;
  stream.text = () => chunks.join('');
  return stream;
}

export function cliWorld(): CliWorld {
  const dir = mkdtempSync(join(tmpdir(), 'plat-cli-'));
  const configDir = join(dir, 'config');
  const dataDir = join(dir, 'data');
  const clock = fixedClock('2026-01-01T00:00:00.000Z');
  const ids = sequentialIds();
  const platform = { clock, ids, publicUrl: 'http://plat.test', logger: () => {} };
  // The embedded platform with the world's clock and ids; remote endpoints go through the real undici transport.
  const transport = async (r: Parameters<NonNullable<CliDeps['transport']>>[0]): Promise<Transport> => {
    if (r.kind === 'embedded') {
      // As the CLI opens it (cli/embedded.ts): no rate limits for a command's own requests.
      const p = await createPlatform({
        db: r.db as string,
        mode: r.sandbox ? 'sandbox' : 'live',
        ...platform,
        limits: { enabled: false },
      });
      return { fetch: p.fetch, baseUrl: 'http://embedded.plat/v2', close: () => p.close() };
    }
    const { remoteTransport } = await import('../../src/client/transports.js');
    const remote = await remoteTransport({ connectTimeoutMs: 2_000 });
    return { fetch: remote.fetch, baseUrl: r.baseUrl as string, close: () => remote.close() };
  };
  const env = { PLAT_CONFIG_DIR: configDir, PLAT_DATA_DIR: dataDir, HOME: dir };
  const readOr = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  return {
    dir,
    configDir,
    dataDir,
    env,
    clock,
    transport,
    async runCli(argv, opts = {}) {
      const tty = opts.tty === true;
      const stdout = capture(tty);
      const stderr = capture(tty, opts.onStderr);
      const stdin = Readable.from(opts.stdin === undefined ? [] : [opts.stdin]) as Readable & { isTTY: boolean };
      stdin.isTTY = tty;
      const code = await run(argv, {
        stdout,
        stderr,
        stdin,
        env: { ...env, ...opts.env },
        cwd: dir,
        clock,
        platform,
        transport,
        credentialStore: { forceFile: true },
        sleep: async () => {},
        version: '0.1.0',
        ...opts.deps,
      });
      const [out, err] = [stdout.text(), stderr.text()];
      return { code, stdout: stable(out, dir), stderr: stable(err, dir), raw: { stdout: out, stderr: err } };
    },
    storedKey(account = 'local') {
      const text = readOr(join(configDir, 'credentials.json'));
      if (!text) return undefined;
      const json = JSON.parse(text) as Record<string, unknown>;
      const entry = (json.profiles ?? json) as Record<string, { apiKey?: string }>;
      return entry[account]?.apiKey;
    },
    configFiles() {
      return ['config.json', 'credentials.json'].map((f) => readOr(join(configDir, f))).join('\n');
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Replaces what differs between runs (the temporary directory, random request ids, timings). */
export function stable(text: string, dir?: string): string {
  const out = dir ? text.replaceAll(dir, '<tmp>') : text;
  return out.replace(/req_[A-Za-z0-9]{20}/g, 'req_…').replace(/\b\d+(\.\d+)?ms\b/g, 'Nms');
}
