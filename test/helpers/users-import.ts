import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliDeps } from '../../src/cli/context.js';
import type { CliWorld } from './cli.js';

/** What a test of `plat users import` hands the transport for each batch request: pass it on, or answer otherwise. */
export type BatchHook = (n: number, request: Request, pass: () => Promise<Response>) => Promise<Response>;

/** The helpers of `plat users import`'s in-process tests, for the world a test runs in (made again for each test). */
export interface ImportHelpers {
  /** A file of the world's directory, as text. */
  read(name: string): string;
  /** The lines of an errors file, parsed. */
  errorsOf(name: string): any[];
  /** The organization's users, by e-mail (`users list --all --json`). */
  users(): Promise<Record<string, any>>;
  /** Deps whose transport hands every batch request to `hook` (the n-th from 1), which may pass it on or fail it. */
  batches(hook: BatchHook): Partial<CliDeps>;
  /** Deps whose transport keeps the body of every batch request sent, in `bodies`. */
  recording(bodies: any[]): Partial<CliDeps>;
}

/** The helpers, for the world `world()` gives when they are called (a `beforeEach` makes a fresh one). */
export function importHelpers(world: () => CliWorld): ImportHelpers {
  const read = (name: string) => readFileSync(join(world().dir, name), 'utf8');
  const batches = (hook: BatchHook): Partial<CliDeps> => {
    let n = 0;
    return {
      transport: async (r) => {
        const t = await world().transport(r);
        const fetch = (request: Request) =>
          request.method === 'POST' && request.url.endsWith('/users/batch')
            ? hook(++n, request, () => t.fetch(request))
            : t.fetch(request);
        return { ...t, fetch };
      },
    };
  };
  return {
    read,
    errorsOf: (name) =>
      read(name)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    users: async () => {
      const list = JSON.parse((await world().runCli(['users', 'list', '--all', '--json'])).stdout) as any[];
      return Object.fromEntries(list.map((u) => [u.email, u]));
    },
    batches,
    recording: (bodies) =>
      batches(async (_n, request, pass) => {
        bodies.push(await request.clone().json());
        return pass();
      }),
  };
}
