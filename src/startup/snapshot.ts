/**
 * The entry of plat's V8 startup snapshot (build-snapshot.js builds it; bin/plat.js, read by the shell, starts from
 * it when it fits the Node.js at hand: launcher.sh). Building it evaluates the CLI, its commands, the client and the
 * embedded platform once — zod schemas, the route table and its request pipeline, commander — and the snapshot keeps the resulting heap, so a
 * command starts with all of that done instead of compiling and evaluating it again (most of a cold start on Node 20,
 * which has no compile cache). It then runs one command (warm-up.ts), so that the functions every command calls are
 * kept compiled too.
 *
 * What cannot be in a snapshot is loaded at run time, through `__platRequire` (see scripts/bundle.mjs): the SQLite
 * addon, keytar and the undici package — and what most commands never use is left out of it the same way: the
 * CommonJS copies of jose and openid-client made beside it. No state of the build machine is kept
 * either: every module reads `process`, the environment and the clock when a command runs, never when it is evaluated. Keep it so:
 * a value a module makes while it is evaluated — a random id or key (crypto.randomUUID, randomBytes), a timestamp, a
 * path — would be made once, when the snapshot is built, and be the same in every run.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startupSnapshot } from 'node:v8';
import { NOUNS } from '../cli/program.js';
import { main } from './main.js';
import { usersTunables } from './tunables.js';
import { warmUp } from './warm-up.js';

declare global {
  /** Where the bundle sits (stands for `import.meta.url` in the snapshot's code). */
  var __platModuleUrl: string | undefined;
  /** Loads packages and addons at run time, from beside the bundle. */
  var __platRequire: ((id: string) => unknown) | undefined;
}

/** Evaluates every module a command may need, so that the snapshot holds them ready. */
async function evaluateAll(): Promise<void> {
  for (const noun of NOUNS) await noun.load();
  await Promise.all([
    import('../platform/index.js'),
    import('../client/transports.js'),
    import('./light-fetch.js'),
    import('../client/client.js'),
    import('../config/config.js'),
    import('../config/resolve.js'),
    import('../auth/credential-store.js'),
  ]);
}

/**
 * The build's timers, for `settleTimers`. Node.js keeps in its timer lists the list of an unref'd timer that was
 * cleared, and the expiry its libuv timer is armed for; a snapshot keeps those lists and that expiry but not the
 * armed libuv timer, so in a process started from it a timer due later than them is never scheduled (its first
 * `setTimeout` after ~2 s — a lock waiter's pause, a 429's wait — never fires, and the process ends as if done, with
 * exit code 0).
 * The warm-up's code must set its timers through the global `setTimeout`/`setInterval` (not node:timers or
 * AbortSignal.timeout), which are recorded while the snapshot is built.
 */
const made: { timer: NodeJS.Timeout; ms: unknown }[] = [];
function recordTimers(): () => void {
  const { setTimeout: once, setInterval: every } = globalThis;
  /** `set`, recording each timer it sets; util.promisify(set) keeps working meanwhile. */
  const recording = <T>(set: (fn: () => void, ms?: number, ...args: unknown[]) => NodeJS.Timeout): T => {
    const recorded = (fn: () => void, ms?: number, ...args: unknown[]) => {
      const timer = set(fn, ms, ...args);
      made.push({ timer, ms });
      return timer;
    };
    const custom = (set as unknown as Record<symbol, unknown>)[promisify.custom];
    if (custom) Object.defineProperty(recorded, promisify.custom, { value: custom });
    return recorded as T;
  };
  globalThis.setTimeout = recording<typeof once>(once);
  globalThis.setInterval = recording<typeof every>(every);
  return () => {
    globalThis.setTimeout = once;
    globalThis.setInterval = every;
  };
}

/** Leaves Node's timers as a fresh process has them: no timer, no list, no expiry. */
async function settleTimers(restore: () => void): Promise<void> {
  restore();
  // Clearing a ref'd timer removes its list once empty: each pending timer, then one more of each duration.
  for (const { timer } of made) clearTimeout(timer.ref());
  for (const { ms } of made) clearTimeout(setTimeout(() => {}, ms as number));
  made.length = 0;
  // A timer that fires makes Node compute its next expiry again: none.
  await new Promise((resolve) => setTimeout(resolve, 1));
  const active = process.getActiveResourcesInfo().filter((what) => what === 'Timeout').length;
  if (active > 0) throw new Error(`${active} timer(s) still set after the warm-up: the snapshot must hold none`);
}

if (startupSnapshot.isBuildingSnapshot()) {
  const restore = recordTimers();
  evaluateAll()
    .then(warmUp)
    .then(() => settleTimers(restore))
    .catch((err: unknown) => {
      process.stderr.write(`plat snapshot: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    });
  startupSnapshot.setDeserializeMainFunction(async () => {
    // The launcher's glibc setting served the start: what plat starts gets the user's (tunables.ts).
    const tunables = usersTunables(process.env.GLIBC_TUNABLES);
    if (tunables === undefined) delete process.env.GLIBC_TUNABLES;
    else process.env.GLIBC_TUNABLES = tunables;
    // The launcher passes bin/plat.js first, as `node bin/plat.js …` would have it (and Node would make it absolute).
    process.argv[1] = resolve(process.argv[1] as string);
    const url = pathToFileURL(join(dirname(process.argv[1]), '../dist/bundle/main.js'));
    globalThis.__platModuleUrl = url.href;
    // Made on first use: most commands load nothing from outside the snapshot.
    let load: NodeJS.Require | undefined;
    globalThis.__platRequire = (id) => {
      load ??= createRequire(url);
      return load(id);
    };
    await main();
  });
}
