import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sequentialIds } from '../../src/platform/clock.js';
import { startServer } from '../../src/platform/server.js';
import type { CliWorld } from './cli.js';

/** A platform served in this process on a loopback port, made and ready, for a world's CLI to call as a remote. */
export interface Served {
  /** `PLAT_BASE_URL` and `PLAT_API_KEY` (the owner's key): what points the CLI at it. */
  env: { PLAT_BASE_URL: string; PLAT_API_KEY: string };
  organizationId: string;
  url: string;
  close(): Promise<void>;
}

/** `plat serve`'s listener on a new database file, on the world's clock, with its organization and owner made. */
export async function servedPlatform(w: CliWorld, prefix: string): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const server = await startServer({
    db: join(dir, 'served.db'),
    port: 0,
    clock: w.clock,
    ids: sequentialIds(),
    logger: () => {},
  });
  const { apiKey, organizationId } = await server.platform.admin.init();
  return {
    env: { PLAT_BASE_URL: `${server.url}/v2`, PLAT_API_KEY: apiKey },
    organizationId,
    url: server.url,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
